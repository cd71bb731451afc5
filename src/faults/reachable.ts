import { FaultRuleError } from './validate.js';
import { kafkaRelease } from '../protocol/kafka-versions.js';

/**
 * What a rule can match on this server: the versions served of each API (after --kafka-version /
 * --api-versions) and the cluster's broker ids. A rule outside them could never fire, so it is
 * refused (as an api key no Kafka API has is: types.ts `resolveApi`).
 */
export interface FaultRuleLimits {
  /** The lowest and highest version of `apiKey` a request may carry here; undefined when it is not served. */
  versions(apiKey: number): readonly [number, number] | undefined;
  /** The highest version served of any API (for a rule that names no api). */
  readonly highestVersion: number;
  /** The first and last broker id (node.id, node.id + brokers - 1). */
  readonly brokerIds: readonly [number, number];
  /** The Kafka release served (`--kafka-version`, as `3.9`); undefined when none was chosen. */
  readonly kafkaVersion?: string;
}

/** What reachability reads of an API definition (src/protocol/kafka-versions.ts `VersionedApi`). */
interface ServedApi {
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly advertisedMinVersion?: number;
}

/**
 * The limits of a server serving `servedApis` (capped, as Kafka `kafkaVersion` when given) with
 * `brokers` brokers from id `firstBrokerId`.
 */
export function faultRuleLimits(servedApis: ReadonlyMap<number, ServedApi>, firstBrokerId: number, brokers: number, kafkaVersion?: string): FaultRuleLimits {
  let highestVersion = 0;
  for (const api of servedApis.values()) highestVersion = Math.max(highestVersion, api.maxVersion);
  return {
    versions(apiKey) {
      const api = servedApis.get(apiKey);
      // The lowest a client may send is the lowest advertised (Produce from v0).
      return api === undefined ? undefined : [Math.min(api.minVersion, api.advertisedMinVersion ?? api.minVersion), api.maxVersion];
    },
    highestVersion,
    brokerIds: [firstBrokerId, firstBrokerId + brokers - 1],
    kafkaVersion: kafkaVersion === undefined ? undefined : kafkaRelease(kafkaVersion),
  };
}

/** The fields of a validated match that reachability checks. */
interface VersionAndBrokerMatch {
  apiKey?: number;
  api?: string;
  minVersion?: number;
  maxVersion?: number;
  brokerId?: number;
}

/**
 * Refuses a match that no request to this server can satisfy (FaultRuleError naming the field and
 * its valid range): an API not served (a share-group API with `--kafka-version 4.0`: its request
 * closes the connection before any rule is tried), `minVersion` above the highest version served
 * of its API (of any API when it names none), `maxVersion` below the lowest, a `brokerId` outside
 * the cluster.
 */
export function checkReachable(match: VersionAndBrokerMatch, limits: FaultRuleLimits): void {
  const served = match.apiKey === undefined ? ([0, limits.highestVersion] as const) : limits.versions(match.apiKey);
  if (served === undefined) {
    const why = limits.kafkaVersion === undefined ? '' : `: Kafka ${limits.kafkaVersion} (--kafka-version) does not advertise it`;
    throw new FaultRuleError(`match.api ${match.api ?? match.apiKey!} is not served here${why}, so the rule could never fire`);
  }
  const [lowest, highest] = served;
  const of = `${match.api === undefined ? 'of any API' : `of ${match.api}`} (v${lowest} to v${highest} here), so the rule could never fire`;
  if (match.minVersion !== undefined && match.minVersion > highest) throw new FaultRuleError(`match.minVersion ${match.minVersion} is above the highest version served ${of}`);
  if (match.maxVersion !== undefined && match.maxVersion < lowest) throw new FaultRuleError(`match.maxVersion ${match.maxVersion} is below the lowest version served ${of}`);
  const [first, last] = limits.brokerIds;
  if (match.brokerId !== undefined && (match.brokerId < first || match.brokerId > last)) {
    throw new FaultRuleError(`match.brokerId ${match.brokerId} is not a broker of this cluster (broker ids ${first} to ${last}), so the rule could never fire`);
  }
}
