import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readdirSync } from 'node:fs';

const NO_BARRELS = { group: ['**/index', '../../src/*'], message: 'Import through the src/ alias, no barrels.' };
const NO_BENCH = { group: ['**/bench/**'], message: 'The service and its tests do not depend on the benchmarks: shared test tooling lives in test/support.' };
const TEXT_LENGTH = { name: 'class-validator', importNames: ['Length', 'MaxLength', 'MinLength'], message: 'Use src/common/http/text-length: it counts code points, as the database does.' };

/**
 * Rooms stay apart (docs/architecture.md): code in src/modules/<room> reaches another room
 * through its module and service, never its repository (only the owner's repository names the
 * owner's tables; the table-ownership spec checks the SQL side).
 */
const ROOMS = readdirSync(new URL('./src/modules', import.meta.url), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const roomBoundaries = ROOMS.map((room) => ({
  files: [`src/modules/${room}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          NO_BARRELS,
          {
            group: ['src/modules/*/**/*.repository', `!src/modules/${room}/**`],
            message: 'Another room is reached through its service, never its repository (docs/architecture.md).',
          },
        ],
        paths: [TEXT_LENGTH],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'console/dist/**', 'console/test-dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-restricted-imports': [
        'error',
        {
          patterns: [NO_BARRELS, NO_BENCH],
          paths: [TEXT_LENGTH],
        },
      ],
    },
  },
  {
    // No import cycles: an interface two files share lives in its own file (issue 18 finding 4).
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  ...roomBoundaries,
  {
    // The heuristic compiler is a library: plain functions over plain data, no Nest, no database,
    // no feature room (docs/architecture.md).
    files: ['src/compiler/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NO_BARRELS,
            NO_BENCH,
            { group: ['@nestjs/*', 'typeorm', 'pg', 'src/modules/*', 'src/db/*', 'src/config/*'], message: 'src/compiler is Nest-free: no framework, database, config or feature room.' },
          ],
          paths: [TEXT_LENGTH],
        },
      ],
    },
  },
  {
    // The web console runs in the browser (console/src) and its tests in Node (console/test).
    files: ['console/**/*.{ts,tsx,mjs}'],
    languageOptions: {
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', sessionStorage: 'readonly', localStorage: 'readonly', fetch: 'readonly', matchMedia: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly', URLSearchParams: 'readonly', Storage: 'readonly', Response: 'readonly', HTMLDivElement: 'readonly', Event: 'readonly', preact: 'readonly' },
    },
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Jest's global setup has no path mapping: relative imports of src/ are allowed there.
    files: ['test/setup/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_BENCH] }] },
  },
);
