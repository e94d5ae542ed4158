import { Global, Module } from '@nestjs/common';
import { config as loadDotenv } from 'dotenv';
import { APP_CONFIG, loadConfig } from './app-config';

/** The only reader of process.env: the validated, frozen config is injected under APP_CONFIG. */
@Global()
@Module({
  providers: [
    {
      provide: APP_CONFIG,
      useFactory: () => {
        // .env fills only variables the environment does not already set.
        loadDotenv({ quiet: true });
        return loadConfig(process.env);
      },
    },
  ],
  exports: [APP_CONFIG],
})
export class ConfigModule {}
