import { Global, Module } from '@nestjs/common';

/** Where log lines go: null = stdout. Tests override it to read the lines back. */
export const LOG_STREAM = Symbol('LOG_STREAM');

let processLogStream: NodeJS.WritableStream | null = null;

/** For processes whose stdout is a protocol channel (the stdio MCP server): set before creating the app. */
export function setProcessLogStream(stream: NodeJS.WritableStream | null): void {
  processLogStream = stream;
}

@Global()
@Module({ providers: [{ provide: LOG_STREAM, useFactory: () => processLogStream }], exports: [LOG_STREAM] })
export class LogStreamModule {}
