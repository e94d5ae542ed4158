import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**'] },
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
          patterns: [{ group: ['**/index', '../../src/*'], message: 'Import through the src/ alias, no barrels.' }],
          paths: [{ name: 'class-validator', importNames: ['Length', 'MaxLength', 'MinLength'], message: 'Use src/common/http/text-length: it counts code points, as the database does.' }],
        },
      ],
    },
  },
  {
    files: ['test/setup/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
