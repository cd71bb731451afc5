import { MAX_REQUEST_STRING_BYTES, Reader, Writer } from '../protocol/primitives.js';
import { API_CODECS, type ApiKeyWithCodec } from '../protocol/messages/index.js';
import * as ApiVersionsResponse from '../protocol/messages/ApiVersionsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from '../apis/types.js';

const API_VERSIONS_KEY = 18;

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string;
}

export type DecodedRequest =
  | { kind: 'request'; header: RequestHeader; body: unknown; api: ApiDefinition; flexible: boolean }
  /** ApiVersions at a version we do not serve (newer, or negative): answered with the v0 body and UNSUPPORTED_VERSION, as Kafka's `RequestContext.isUnsupportedApiVersionsRequest`. */
  | { kind: 'api-versions-unsupported'; header: RequestHeader }
  | { kind: 'refused'; header: RequestHeader | null; reason: string };

/**
 * Each API's codecs and its request's first flexible version (-1: none), by API key, filled in at
 * the key's first request (the codec modules load on first use, test/layout/lazy-loading.test.ts):
 * looked up twice per request, where `API_CODECS`' keyed lookup and each codec's own shape made
 * polymorphic loads.
 */
const CODECS: Array<(typeof API_CODECS)[ApiKeyWithCodec] | undefined> = [];
/** -2: not looked up yet. */
const FIRST_FLEXIBLE = new Int16Array(128).fill(-2);

function firstFlexible(apiKey: number): number {
  if (apiKey < 0 || apiKey >= FIRST_FLEXIBLE.length) return -1;
  const first = FIRST_FLEXIBLE[apiKey]!;
  if (first !== -2) return first;
  const codec = API_CODECS[apiKey as ApiKeyWithCodec] as (typeof API_CODECS)[ApiKeyWithCodec] | undefined;
  return (FIRST_FLEXIBLE[apiKey] = codec ? codec.request.FIRST_FLEXIBLE_VERSION : -1);
}

function codecOf(apiKey: number): (typeof API_CODECS)[ApiKeyWithCodec] {
  return CODECS[apiKey] ?? (CODECS[apiKey] = API_CODECS[apiKey as ApiKeyWithCodec]);
}

function isFlexible(apiKey: number, version: number): boolean {
  const first = firstFlexible(apiKey);
  return first >= 0 && version >= first;
}

/**
 * Frames at least this big (bytes, size prefix excluded) are decoded in slices
 * (`decodeRequestInSlices`): about 3,500 OffsetCommit partitions, a few ms of decoding at once.
 */
export const DECODE_IN_SLICES_BYTES = 64 * 1024;

/** Bytes of the reused response writer; a response that grows it beyond keeps its buffer. */
const SCRATCH_BYTES = 16 * 1024;

type Header = Exclude<DecodedRequest, { kind: 'request' }> | { kind: 'body'; header: RequestHeader; api: ApiDefinition; flexible: boolean; reader: Reader };

/** Header v2's tagged fields (RequestHeader.json defines none): skipped; one function, not a closure per request. */
const skipTag = (): boolean => false;

/**
 * Decodes request header v1/v2. Header v2 (flexible) adds a tagged block after the client id,
 * which keeps its int16 length (Kafka's RequestHeader.json). An unknown API key or a version we
 * do not serve is `refused` (the caller closes the connection, as Kafka does); ApiVersions is the
 * exception (Kafka's `ApiVersionsRequest` fallback, KIP-511).
 */
function decodeHeader(frame: Buffer, handlers: ReadonlyMap<number, ApiDefinition>): Header {
  const r = new Reader(frame);
  r.maxStringBytes = MAX_REQUEST_STRING_BYTES;
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.nullableString(false) ?? '';
  const header: RequestHeader = { apiKey, apiVersion, correlationId, clientId };
  const api = handlers.get(apiKey);
  if (!api) return { kind: 'refused', header, reason: `unknown API key ${apiKey}` };
  if (apiKey === API_VERSIONS_KEY && (apiVersion > api.maxVersion || apiVersion < api.minVersion)) return { kind: 'api-versions-unsupported', header };
  if (apiVersion < api.minVersion || apiVersion > api.maxVersion) {
    return { kind: 'refused', header, reason: `unsupported version ${apiVersion} of ${api.name} (serving ${api.minVersion}-${api.maxVersion})` };
  }
  const flexible = isFlexible(apiKey, apiVersion);
  if (flexible) r.taggedFields(skipTag);
  return { kind: 'body', header, api, flexible, reader: r };
}

/** Decodes the request header and the body (see `decodeHeader`). Trailing bytes are ignored, as Kafka's request parsing does. */
export function decodeRequest(frame: Buffer, handlers: ReadonlyMap<number, ApiDefinition>): DecodedRequest {
  const h = decodeHeader(frame, handlers);
  if (h.kind !== 'body') return h;
  const codec = codecOf(h.header.apiKey);
  const body = codec.request.decode(h.reader, h.header.apiVersion);
  return { kind: 'request', header: h.header, body, api: h.api, flexible: h.flexible };
}

/**
 * As `decodeRequest`, a slice at a time: a generator that yields every `ELEMENTS_PER_SLICE`
 * struct elements of the body (the request's generated `decodeInSlices`), for the caller to give
 * the event loop to other connections in between (`runInSlices`).
 */
export function* decodeRequestInSlices(frame: Buffer, handlers: ReadonlyMap<number, ApiDefinition>): Generator<void, DecodedRequest> {
  const h = decodeHeader(frame, handlers);
  if (h.kind !== 'body') return h;
  const codec = codecOf(h.header.apiKey);
  const body: unknown = yield* (codec.request.decodeInSlices as (r: Reader, v: number) => Generator<void, unknown>)(h.reader, h.header.apiVersion);
  return { kind: 'request', header: h.header, body, api: h.api, flexible: h.flexible };
}

/**
 * The writer `encodeResponse` encodes into, reused (encoding is synchronous): a response costs one
 * buffer of its exact size, not a writer, a 256-byte slice of Node's pool and a view of it.
 */
const scratch = new Writer(SCRATCH_BYTES);

/** Encodes a response frame (size prefix included): header v1 for flexible responses, v0 otherwise and always for ApiVersions. */
export function encodeResponse(header: RequestHeader, body: unknown): Buffer {
  return encodeWithScratch(header, body, null) as Buffer;
}

/**
 * `encodeResponse`, with large byte fields (Fetch's records) not copied: the frame as its parts in
 * order when it holds any (the encoded bytes around views of those fields: written with one corked
 * writev), else as one buffer. The fields' buffers must stay unchanged until written (the log's
 * reads are fresh buffers, never written to again).
 */
export function encodeResponseParts(header: RequestHeader, body: unknown): Buffer | Buffer[] {
  return encodeWithScratch(header, body, byReference);
}

/** The fields `encodeResponseParts` passes by reference, reused (emptied before each response; most have none). */
const byReference: Array<{ at: number; bytes: Buffer }> = [];

/** Responses up to this many bytes (a commit's: ~40) are copied out of the scratch by a loop, cheaper than a call into `Buffer.copy`. */
const COPY_IN_JS_BYTES = 128;

function encodeWithScratch(header: RequestHeader, body: unknown, references: Array<{ at: number; bytes: Buffer }> | null): Buffer | Buffer[] {
  const w = scratch;
  w.offset = 0;
  // Setting an array's length is a call into the runtime even when it is 0 already.
  if (references !== null && references.length !== 0) references.length = 0;
  w.references = references;
  try {
    startResponse(w, header);
    const codec = codecOf(header.apiKey);
    (codec.response.encode as (w: Writer, v: number, b: unknown) => void)(w, header.apiVersion, body);
  } finally {
    w.references = null;
  }
  let out: Buffer;
  if (w.buf.length > SCRATCH_BYTES) {
    // A large response keeps the buffer it grew (no copy); the scratch starts small again.
    out = w.finish();
    w.buf = Buffer.allocUnsafe(SCRATCH_BYTES);
  } else if (w.offset <= COPY_IN_JS_BYTES) {
    const size = w.offset;
    const from = w.buf;
    out = Buffer.allocUnsafe(size);
    for (let i = 0; i < size; i++) out[i] = from[i]!;
  } else {
    out = Buffer.allocUnsafe(w.offset);
    w.buf.copy(out, 0, 0, w.offset);
  }
  if (references === null || references.length === 0) {
    out.writeInt32BE(out.length - 4, 0);
    return out;
  }
  const parts: Buffer[] = [];
  let size = out.length;
  let from = 0;
  for (const { at, bytes } of references) {
    if (at > from) parts.push(out.subarray(from, at));
    parts.push(bytes);
    size += bytes.length;
    from = at;
  }
  if (out.length > from) parts.push(out.subarray(from));
  // The shared list lets go of the fields' buffers (they stay in `parts` until written).
  references.length = 0;
  out.writeInt32BE(size - 4, 0);
  return parts;
}

/** A response encoded in slices is handed on in parts of about this many bytes (`Writer.detachWritten`). */
const SLICED_PART_BYTES = 1024 * 1024;

/**
 * As `encodeResponse`, a slice at a time (the response's generated `encodeInSlices`): the answer
 * to a request decoded in slices, as the frame's parts in order, a new part begun between two
 * slices once one holds `SLICED_PART_BYTES` (no whole-frame copy as the writer grows).
 */
export function* encodeResponseInSlices(header: RequestHeader, body: unknown): Generator<void, Buffer[]> {
  const w = responseWriter(header);
  const codec = codecOf(header.apiKey);
  const parts: Buffer[] = [];
  const encoding = (codec.response.encodeInSlices as (w: Writer, v: number, b: unknown) => Generator<void, void>)(w, header.apiVersion, body);
  while (!encoding.next().done) {
    if (w.offset >= SLICED_PART_BYTES) {
      const part = w.detachWritten();
      if (part !== null) parts.push(part);
    }
    yield;
  }
  parts.push(w.finish());
  let size = 0;
  for (const part of parts) size += part.length;
  // The first part holds the header, written before the first slice.
  parts[0]!.writeInt32BE(size - 4, 0);
  return parts;
}

function responseWriter(header: RequestHeader): Writer {
  const w = new Writer(256);
  startResponse(w, header);
  return w;
}

/** The size (patched once known) and the response header. */
function startResponse(w: Writer, header: RequestHeader): void {
  w.int32(0);
  w.int32(header.correlationId);
  if (header.apiKey !== API_VERSIONS_KEY && isFlexible(header.apiKey, header.apiVersion)) w.uvarint(0);
}

/** The v0 ApiVersions body Kafka sends to an ApiVersions request of a version it does not serve: UNSUPPORTED_VERSION plus our range for key 18. */
export function encodeApiVersionsFallback(header: RequestHeader, api: ApiDefinition): Buffer {
  const w = new Writer(32);
  w.int32(0);
  w.int32(header.correlationId);
  ApiVersionsResponse.encode(w, 0, {
    errorCode: ErrorCode.UNSUPPORTED_VERSION,
    apiKeys: [{ apiKey: API_VERSIONS_KEY, minVersion: api.minVersion, maxVersion: api.maxVersion }],
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  });
  const out = w.finish();
  out.writeInt32BE(out.length - 4, 0);
  return out;
}
