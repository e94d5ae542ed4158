import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, readConfig } from './app-config';

/** The only reader of process.env: the validated, frozen config is injected under APP_CONFIG. */
@Global()
@Module({
  providers: [
    {
      provide: APP_CONFIG,
      useFactory: readConfig,
    },
  ],
  exports: [APP_CONFIG],
})
export class ConfigModule {}
