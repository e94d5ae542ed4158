import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from 'src/app.module';
import { buildOpenApi } from 'src/app.setup';

/**
 * The document is built in Nest's preview mode: modules and routes are scanned but no
 * provider runs, so no database is opened.
 */
export async function openapiCommand(): Promise<string> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { preview: true, logger: false, abortOnError: false });
  const doc = buildOpenApi(app);
  await app.close();
  return JSON.stringify(doc, null, 2);
}
