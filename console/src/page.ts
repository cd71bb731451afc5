import type { ChangeNotice } from './api.js';

/** One page of the console: fills its root on `refresh`, and says which changes concern it. */
export interface Page {
  wants(notice: ChangeNotice): boolean;
  refresh(): Promise<void>;
  dispose?(): void;
}
