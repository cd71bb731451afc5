/** The lag chart of a group page: one line per partition over (wall-clock) time, with uPlot. */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { GroupHistory } from './types.js';

const COLORS = ['#2f6fde', '#d9480f', '#2b8a3e', '#9c36b5', '#e67700', '#0b7285', '#c2255c', '#5c940d'];

export class LagChart {
  private plot: uPlot | null = null;
  private keys = '';

  constructor(private readonly root: HTMLElement) {}

  /**
   * Draws `lag`; with no sample (no committed offset yet, or a share group, which commits none: its
   * lag is in the share partitions table) says `emptyText` instead of an empty chart whose time
   * axis would start at 1970.
   */
  update(lag: GroupHistory['lag'], emptyText: string): void {
    if (lag.samples.length === 0) {
      this.dispose();
      this.keys = '';
      this.root.replaceChildren(Object.assign(document.createElement('p'), { className: 'empty', textContent: emptyText }));
      return;
    }
    if (this.plot === null) this.root.replaceChildren();
    // Samples are kept when a lag changes; the last one still holds now, so the steps run up to now.
    const last = lag.samples[lag.samples.length - 1];
    const samples = last && last.t < Date.now() ? [...lag.samples, { t: Date.now(), lag: last.lag }] : lag.samples;
    const xs = samples.map((s) => s.t / 1000);
    const series = lag.partitions.map((_, i) => samples.map((s) => s.lag[i] ?? null));
    const data = [xs, ...series] as uPlot.AlignedData;
    const keys = lag.partitions.join('\u0000');
    if (this.plot && keys === this.keys) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.keys = keys;
    const width = Math.max(320, Math.min(this.root.clientWidth || 900, 1100));
    this.plot = new uPlot(
      {
        width,
        height: 220,
        // At least the last minute on the x axis (seconds), so that a few samples do not span years.
        scales: { x: { time: true, range: (_u, min, max) => [Math.min(min, max - 60), max + 1] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{}, { label: 'lag (messages)' }],
        // Lag changes in steps (a produce, a commit): drawn as steps, not slopes between samples.
        series: [{}, ...lag.partitions.map((p, i) => ({ label: p, stroke: COLORS[i % COLORS.length]!, width: 2, spanGaps: true, paths: uPlot.paths.stepped!({ align: 1 }) }))],
      },
      data,
      this.root,
    );
  }

  dispose(): void {
    this.plot?.destroy();
    this.plot = null;
  }
}
