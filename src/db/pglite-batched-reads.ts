import type { PGLiteSocketHandler } from '@electric-sql/pglite-socket';

/**
 * How a PGlite socket server reads: a replacement for pglite-socket's `handleData`, used by the
 * embedded engine's thread (embedded-server.ts) and by the test suite's PGlite servers, so the
 * suite speaks to the database exactly as the service does.
 *
 * The stock handler hands PGlite one protocol message at a time and writes each answer as it
 * comes: a parameterised query (Parse, Bind, Describe, Execute, Sync, sent by the driver in one
 * write) was five calls into the database and five socket writes, each woken on the other side.
 * This one hands over every complete message a read delivered in one call and answers in one
 * write. A large result still streams: PGlite hands its answer over in 8 kB pieces, and each
 * full piece is written at once, so the service parses rows while later ones are produced (a
 * 64 kB threshold here made context requests 2 ms slower at p50). The protocol is unchanged:
 * PGlite's backend reads the messages in order exactly as PostgreSQL's does (an error still
 * skips to the next Sync), and the stock queue still keeps a transaction's statements together.
 *
 * It is JavaScript in a string that expects `PGLiteSocketHandler` in scope, because the engine's
 * thread runs its program from a string (a worker cannot load a .ts file under jest).
 */
export const BATCHED_READS_SOURCE = `const FLUSH_BYTES = 8192;
PGLiteSocketHandler.prototype.handleData = async function handleData(chunk) {
  if (!this.socket || !this.active) return 0;
  this.messageBuffer = this.messageBuffer.length > 0 ? Buffer.concat([this.messageBuffer, chunk]) : chunk;
  let answered = 0;
  while (this.messageBuffer.length > 0) {
    if (this.handleSslRequest() || this.handleCancelRequest()) continue;
    const buffer = this.messageBuffer;
    let end = 0;
    if (!this.startedUp) {
      // The startup message has no type byte: its length, then the protocol version.
      if (buffer.length < 8 || buffer.length < buffer.readInt32BE(0)) break;
      end = buffer.readInt32BE(0);
      this.startedUp = true;
    } else {
      // Every later message: a type byte, then its length (which counts itself).
      while (end + 5 <= buffer.length) {
        const length = 1 + buffer.readInt32BE(end + 1);
        if (end + length > buffer.length) break;
        end += length;
      }
    }
    if (end === 0) break;
    // Taken off the buffer before the await: a read that arrives meanwhile queues behind it.
    this.messageBuffer = buffer.subarray(end);
    const parts = [];
    let pending = 0;
    const flush = () => {
      if (parts.length > 0 && this.socket && this.socket.writable && this.active) this.socket.write(parts.length === 1 ? parts[0] : Buffer.concat(parts, pending));
      parts.length = 0;
      pending = 0;
    };
    await this.queryQueue.enqueue(this.id, new Uint8Array(buffer.buffer, buffer.byteOffset, end), (data) => {
      if (data.length === 0) return;
      // A view of the database's memory, valid only during this call.
      parts.push(Buffer.from(data));
      pending += data.length;
      answered += data.length;
      if (pending >= FLUSH_BYTES) flush();
    });
    flush();
  }
  return answered;
};
`;

/** Gives a PGLiteSocketHandler class (every server of that module instance) the batched reads. */
export function useBatchedReads(handler: typeof PGLiteSocketHandler): void {
  new Function('PGLiteSocketHandler', BATCHED_READS_SOURCE)(handler);
}
