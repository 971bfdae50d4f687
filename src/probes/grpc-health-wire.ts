// The two messages of grpc.health.v1.Health/Check, encoded by hand
// (https://github.com/grpc/grpc/blob/master/src/proto/grpc/health/v1/health.proto):
//   message HealthCheckRequest  { string service = 1; }
//   message HealthCheckResponse { ServingStatus status = 1; }
// each inside gRPC's length-prefixed frame: a compressed flag byte, then the
// length as 4 bytes big-endian (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md).

export const SERVING_STATUS_NAMES: Readonly<Record<number, string>> = {
  0: 'UNKNOWN',
  1: 'SERVING',
  2: 'NOT_SERVING',
  3: 'SERVICE_UNKNOWN',
};

/** https://grpc.github.io/grpc/core/md_doc_statuscodes.html */
export const GRPC_STATUS_NAMES: readonly string[] = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

const FRAME_HEADER_BYTES = 5;
/** Field 1, wire type 2 (length-delimited): (1 << 3) | 2. */
const SERVICE_TAG = 0x0a;

/** A framed HealthCheckRequest. An empty service is the server as a whole, and proto3 leaves the field out. */
export function encodeHealthRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  const field = name.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.of(SERVICE_TAG), encodeVarint(name.length), name]);
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUInt32BE(field.length, 1);
  return Buffer.concat([header, field]);
}

export type HealthAnswer = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly reason: string };

/** The ServingStatus of one framed HealthCheckResponse; a missing field is UNKNOWN (proto3's default). */
export function decodeHealthResponse(frame: Buffer): HealthAnswer {
  if (frame.length < FRAME_HEADER_BYTES) return { ok: false, reason: 'the answer has no message' };
  if (frame[0] !== 0) return { ok: false, reason: 'the answer is compressed, which was not asked for' };
  const length = frame.readUInt32BE(1);
  if (frame.length !== FRAME_HEADER_BYTES + length) return { ok: false, reason: 'the answer is not one whole message' };
  let status = 0;
  let offset = FRAME_HEADER_BYTES;
  // Unknown fields are skipped, as protobuf readers do; the last status wins.
  while (offset < frame.length) {
    const key = readVarint(frame, offset);
    if (key === undefined) return malformed();
    offset = key.next;
    const field = key.value >>> 3;
    switch (key.value & 7) {
      case 0: {
        const value = readVarint(frame, offset);
        if (value === undefined) return malformed();
        if (field === 1) status = value.value;
        offset = value.next;
        break;
      }
      case 1:
        offset += 8;
        break;
      case 2: {
        const size = readVarint(frame, offset);
        if (size === undefined) return malformed();
        offset = size.next + size.value;
        break;
      }
      case 5:
        offset += 4;
        break;
      default:
        return malformed();
    }
  }
  return offset === frame.length ? { ok: true, status } : malformed();
}

function malformed(): HealthAnswer {
  return { ok: false, reason: 'the answer is not a HealthCheckResponse' };
}

function encodeVarint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** Up to 28 bits, which covers every tag, length and enum value this message can hold; longer is refused. */
function readVarint(buffer: Buffer, start: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let index = 0; index < 4; index++) {
    const byte = buffer[start + index];
    if (byte === undefined) return undefined;
    value |= (byte & 0x7f) << (7 * index);
    if ((byte & 0x80) === 0) return { value, next: start + index + 1 };
  }
  return undefined;
}
