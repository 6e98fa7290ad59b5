/** `bytes` as a Buffer (itself when it is one), for Buffer's native searches and decoders: no copy. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The text of ASCII bytes [from, to): one character per byte, made at memcpy speed (latin1 is a one-byte string). */
export function asciiText(bytes: Uint8Array, from = 0, to = bytes.length): string {
  return asBuffer(bytes).toString('latin1', from, to);
}
