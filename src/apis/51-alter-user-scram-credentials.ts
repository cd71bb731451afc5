import type { AlterUserScramCredentialsRequest } from '../protocol/messages/AlterUserScramCredentialsRequest.js';
import type { AlterUserScramCredentialsResponse, AlterUserScramCredentialsResult } from '../protocol/messages/AlterUserScramCredentialsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { credentialFromSaltedPassword, scramMechanismOfType, type ScramCredential, type ScramMechanismInfo } from '../security/sasl/scram-formatter.js';
import { errorMessageOf } from '../protocol/error-messages.js';
import type { ApiDefinition } from './types.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** Kafka's `ScramControlManager.MAX_ITERATIONS`. */
const MAX_ITERATIONS = 16384;

type Failure = { errorCode: number; errorMessage: string };

/**
 * AlterUserScramCredentials (key 51, v0), as Kafka 4.3's `ScramControlManager.alterCredentials`:
 * deletions, then upsertions, each user at most once per request (DUPLICATE_RESOURCE "A user
 * credential cannot be altered twice in the same request"); an empty user name or fewer than 4096
 * / more than 16384 iterations is UNACCEPTABLE_CREDENTIAL, an unknown mechanism
 * UNSUPPORTED_SASL_MECHANISM, deleting a credential that does not exist RESOURCE_NOT_FOUND. The
 * stored and server keys are derived from the salted password the client sent; the accepted
 * changes are applied together and are on disk before the answer (`scram-credentials.json`).
 * Results: deletions, upsertions, then failures.
 */
export const api: ApiDefinition<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse> = {
  apiKey: 51,
  name: 'AlterUserScramCredentials',
  minVersion: 0,
  maxVersion: 0,
  // AlterUserScramCredentialsRequest.getErrorResponse: every user named, once, sorted.
  errorResponse: (req, _version, errorCode) => ({
    throttleTimeMs: 0,
    results: [...new Set([...req.deletions, ...req.upsertions].map((c) => c.name))].sort().map((user) => ({ user, errorCode, errorMessage: errorMessageOf(errorCode) })),
  }),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { scram } = ctx.broker;
    const failures = new Map<string, Failure>();
    const deletions = new Map<string, ScramMechanismInfo>();
    const upserts = new Map<string, { mechanism: ScramMechanismInfo; credential: ScramCredential }>();
    const duplicate: Failure = { errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: 'A user credential cannot be altered twice in the same request' };
    const validate = (name: string, type: number): ScramMechanismInfo | Failure => {
      if (name === '') return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' };
      return scramMechanismOfType(type) ?? { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism' };
    };
    for (const d of req.deletions) {
      if (failures.has(d.name)) continue;
      if (deletions.delete(d.name)) {
        failures.set(d.name, duplicate);
        continue;
      }
      const mechanism = validate(d.name, d.mechanism);
      if ('errorCode' in mechanism) failures.set(d.name, mechanism);
      else if (!scram.has(d.name, mechanism)) failures.set(d.name, { errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist' });
      else deletions.set(d.name, mechanism);
    }
    for (const u of req.upsertions) {
      if (failures.has(u.name)) continue;
      if (deletions.delete(u.name) || upserts.delete(u.name)) {
        failures.set(u.name, duplicate);
        continue;
      }
      const mechanism = validate(u.name, u.mechanism);
      if ('errorCode' in mechanism) failures.set(u.name, mechanism);
      else if (u.iterations < mechanism.minIterations) failures.set(u.name, { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' });
      else if (u.iterations > MAX_ITERATIONS) failures.set(u.name, { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' });
      else upserts.set(u.name, { mechanism, credential: credentialFromSaltedPassword(mechanism, Buffer.from(u.salt), Buffer.from(u.saltedPassword), u.iterations) });
    }
    scram.apply({
      remove: [...deletions].map(([user, mechanism]) => ({ user, mechanism })),
      upsert: [...upserts].map(([user, { mechanism, credential }]) => ({ user, mechanism, credential })),
    });
    const ok = (user: string): AlterUserScramCredentialsResult => ({ user, errorCode: ErrorCode.NONE, errorMessage: null });
    return {
      throttleTimeMs: 0,
      results: [
        ...[...deletions.keys()].map(ok),
        ...[...upserts.keys()].map(ok),
        ...[...failures].map(([user, f]) => ({ user, errorCode: f.errorCode, errorMessage: f.errorMessage })),
      ],
    };
  },
};
