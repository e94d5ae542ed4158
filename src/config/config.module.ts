import { Global, Module } from '@nestjs/common';
import { config as loadDotenv } from 'dotenv';
import { APP_CONFIG, AppConfig, loadConfig } from './app-config';

/** The environment, with .env filling only variables it does not already set, validated. */
export function readConfig(): AppConfig {
  loadDotenv({ quiet: true });
  return loadConfig(process.env);
}

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
