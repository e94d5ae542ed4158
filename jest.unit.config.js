/** Pure unit specs only (no database): `npx jest -c jest.unit.config.js`. */
const base = require('./jest.config');
module.exports = { ...base, roots: ['<rootDir>/src'], testRegex: '.*\\.spec\\.ts$', globalSetup: undefined, globalTeardown: undefined };
