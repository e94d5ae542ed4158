/** Injection tokens of the database module, apart from it so its providers can import them. */
export const DATABASE = Symbol('DATABASE');
export const VECTOR_MODE = Symbol('VECTOR_MODE');
