import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from 'express';

/** What Express keeps on an app and its typings leave out: the prototypes it gives requests and responses. */
export interface ExpressPrototypes {
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
 * cost 0.121 ms of CPU per request; the same app on the server built here promoted nothing and
 * cost 0.028 ms (bench/perf/http-prototypes.ts; bench/README.md "Requests born with Express's
 * prototypes"; expressjs/express#5998 describes the same cost).
 *
 * So the server constructs requests and responses from subclasses of node's, whose prototypes
 * inherit from the app's `app.request` and `app.response`, and the app's prototypes become those
 * subclasses' own: Express's `setPrototypeOf` then sets the prototype an object already has,
 * which V8 treats as no change. Every Express method and `app` are still found up the chain, and
 * `instanceof IncomingMessage` / `ServerResponse` hold.
 *
 * Subclasses (`extends`), not functions given a `prototype`: V8 sizes a derived class's objects
 * for the fields its base constructors add, while a plain function that calls node's constructor
 * on `this` gets objects sized for its own few, which node's symbol-keyed fields then push into
 * dictionary mode (slow, hash-table properties): on the bare app 18 against 12 KB allocated and
 * 0.033 against 0.028 ms of CPU per request; in the service, 0.93× the CPU per ingest request and
 * 0.60–0.66× per `GET /healthz` with subclasses.
 */
export function expressServerClasses(app: ExpressPrototypes): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  class ExpressRequest extends IncomingMessage {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  app.request = ExpressRequest.prototype;
  class ExpressResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  app.response = ExpressResponse.prototype;
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}

/**
 * Nest's Express adapter with a server built as above. HTTPS and `forceCloseConnections` (neither
 * used by the service) keep Nest's own server.
 */
export class ExpressServerAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Application>();
    this.httpServer = createServer(expressServerClasses(app as unknown as ExpressPrototypes), app);
  }
}
