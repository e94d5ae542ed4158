import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from 'express';

/** What Express keeps on an app and its typings leave out: the prototypes it gives requests and responses. */
interface ExpressPrototypes {
  request: object;
  response: object;
}

/**
 * Express gives each request its methods (`req.header`, `res.json`, ...) by changing the
 * prototype of the request and response node:http built: `Object.setPrototypeOf(req,
 * app.request)` on every request. V8 cannot keep an object's shape through a prototype change
 * made after construction, and the two objects, with everything hung on them for the request,
 * then survive the young-generation collections they should die in: under load a fifth of what
 * a request allocated was promoted to the old generation and left for full collections. A bare
 * Express 5 app answering `{"status":"ok"}` at concurrency 8 promoted 31% of its allocation and
 * cost 0.123 ms of CPU per request; the same app on the server built here promoted nothing and
 * cost 0.035 ms (bench/perf/http-prototypes.ts; bench/README.md "Requests born with Express's
 * prototypes"; expressjs/express#5998 describes the same cost).
 *
 * So the server is created with request and response classes whose prototypes are the app's own
 * `app.request` and `app.response`: Express's `setPrototypeOf` then finds the prototype already
 * in place, which V8 treats as no change. Nothing else differs: node:http constructs them with
 * the same arguments, and `instanceof IncomingMessage` / `ServerResponse` still hold, since the
 * app's prototypes inherit from node's.
 */
export function expressServerClasses(app: ExpressPrototypes): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  // Function constructors, because a class's `prototype` cannot be replaced; they run node's
  // constructors on `this` (node defines both as plain functions). Reflect.construct with a new
  // target would work for classes too, but V8 then builds slower objects: half the throughput
  // of this form on the bare Express app.
  function ExpressRequest(this: IncomingMessage, socket: Socket): void {
    (IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void).call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  ExpressResponse.prototype = app.response;
  return {
    IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
  };
}

/** Whether node's IncomingMessage and ServerResponse are plain functions, as ExpressRequest needs. */
export function callableConstructors(): boolean {
  return [IncomingMessage, ServerResponse].every((ctor) => !/^class\b/.test(Function.prototype.toString.call(ctor)));
}

/**
 * Nest's Express adapter with a server built as above. HTTPS and `forceCloseConnections` (neither
 * used by the service), and a node whose constructors became classes, keep Nest's own server.
 */
export class ExpressServerAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections || !callableConstructors()) return super.initHttpServer(options);
    const app = this.getInstance<Application>();
    this.httpServer = createServer(expressServerClasses(app as unknown as ExpressPrototypes), app);
  }
}
