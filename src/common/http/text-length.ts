import { ValidateBy, ValidationOptions } from 'class-validator';

/**
 * Length limits that count what PostgreSQL counts. `varchar(n)` holds n characters, i.e. Unicode
 * code points; class-validator's Length/MaxLength count UTF-16 code units minus variation
 * selectors, so 256 × "a\uFE0F" passed `@Length(1, 256)` and then failed in the database
 * (512 code points). These keep the same names, constraint types (`isLength`, `maxLength`) and
 * OpenAPI output (the swagger plugin reads the decorator by name), so a DTO only changes its
 * import; eslint forbids the class-validator ones.
 */
export function codePointLength(s: string, stopAfter = Infinity): number {
  let n = 0;
  // for..of walks code points; a lone surrogate counts as one, as the JSON checks refuse it anyway.
  for (const _ of s) if (++n > stopAfter) break;
  return n;
}

/** Code points of `s` within [min, max], counting only as far as needed. */
export function codePointsWithin(s: string, min: number, max: number): boolean {
  // A string of L code units holds between L/2 and L code points.
  if (s.length < min || s.length > 2 * max) return false;
  if (s.length <= max && s.length >= 2 * min) return true;
  const n = codePointLength(s, max);
  return n >= min && n <= max;
}

export function Length(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLength',
      constraints: [min, max],
      validator: {
        validate: (value) => typeof value === 'string' && codePointsWithin(value, min, max),
        defaultMessage: (args) => `${args?.property} must be ${min} to ${max} characters long`,
      },
    },
    options,
  );
}

export function MaxLength(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxLength',
      constraints: [max],
      validator: {
        validate: (value) => typeof value === 'string' && codePointsWithin(value, 0, max),
        defaultMessage: (args) => `${args?.property} must be at most ${max} characters long`,
      },
    },
    options,
  );
}
