/** The text of ASCII bytes [from, to): one character per byte, made at memcpy speed (latin1 is a one-byte string). */
export function asciiText(bytes: Uint8Array, from = 0, to = bytes.length): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return buffer.toString('latin1', from, to);
}
