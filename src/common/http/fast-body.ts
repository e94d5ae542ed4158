import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';
import { TransformationType } from 'class-transformer';

// The storage class-transformer's decorators write to (one module instance, the package's own):
// it has no typed entry point of its own.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerStorage };

/**
 * A fast path for request bodies that class-validator would accept, giving the same instance
 * that class-transformer + class-validator (Nest's ValidationPipe with `whitelist` and
 * `transform`) would give, without their generic walk. A batch of 100 episodes spent more service
 * CPU in that walk (a deep copy of every payload, metadata lookups per property per episode) than
 * in everything else it does (bench/README.md "Batch ingest cost").
 *
 * It is only ever a shortcut for valid input: `null` means "not sure", and the caller then runs
 * the full pipe, so every validation error keeps its exact shape and order. A class qualifies
 * when each rule on it is one this file reproduces exactly, read from the decorators themselves
 * (no copy of a DTO's rules that could drift):
 * - `@IsOptional()` (its own condition is called);
 * - any synchronous custom constraint, `@IsString()`, `@IsObject()`, `@Length()`, `@IsArray()`,
 *   `@ArrayMinSize()` … (class-validator's own constraint instance is called), without `each`
 *   or groups;
 * - `@ValidateNested()` with `@Type(() => Class)` of a class that qualifies too.
 * Any other rule or class-transformer decorator (`@Transform`, `@Expose`, `@Type` to convert a
 * value) disqualifies the class.
 *
 * Values are reused, not copied. class-transformer's copy of a plain object is the same except
 * that it leaves out keys naming Object.prototype members (`constructor`, `toString`,
 * `__proto__`, …): a value holding such a key anywhere is left to the full pipe.
 */

type Check = (value: unknown, object: Record<string, unknown>, property: string) => boolean;

interface PropertyPlan {
  name: string;
  /** Conditions of `@IsOptional`/`@ValidateIf`: when one is false the property is not validated. */
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
  /** `@ValidateNested` with `@Type`: the element class (each element of an array). */
  nested: ClassPlan | null;
}

interface ClassPlan {
  cls: new () => object;
  properties: Map<string, PropertyPlan>;
  /** Fields the class declares without rules: the whitelist deletes them from the instance. */
  unruled: string[];
}

/** A class as Nest passes it (ArgumentMetadata.metatype). */
type Ctor = new (...args: never[]) => object;

const plans = new Map<Ctor, ClassPlan | null>();

/** Keys class-transformer leaves out of a plain object's copy (see TransformOperationExecutor). */
const PROTO_KEYS = new Set<string>(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)]);

function planFor(cls: Ctor): ClassPlan | null {
  if (plans.has(cls)) return plans.get(cls)!;
  plans.set(cls, null); // a class nesting itself is not supported
  const plan = buildPlan(cls as new () => object);
  plans.set(cls, plan);
  return plan;
}

function buildPlan(cls: new () => object): ClassPlan | null {
  const storage = getMetadataStorage();
  if (defaultMetadataStorage.getExposedMetadatas(cls).length || defaultMetadataStorage.getExcludedMetadatas(cls).length) return null;
  const metadatas = storage.getTargetValidationMetadatas(cls, '', true, false);
  const properties = new Map<string, PropertyPlan>();
  for (const m of metadatas) {
    // `each` changes nothing for @ValidateNested (arrays are walked element by element anyway).
    if ((m.each && m.type !== ValidationTypes.NESTED_VALIDATION) || (m.groups && m.groups.length > 0) || m.always || typeof m.propertyName !== 'string') return null;
    const p = properties.get(m.propertyName) ?? { name: m.propertyName, conditions: [], checks: [], nested: null };
    properties.set(m.propertyName, p);
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      const condition = m.constraints[0] as (object: object, value: unknown) => boolean;
      p.conditions.push(condition);
    } else if (m.type === ValidationTypes.CUSTOM_VALIDATION) {
      for (const c of storage.getTargetValidatorConstraints(m.constraintCls)) {
        if (c.async) return null;
        const instance = c.instance;
        const constraints = m.constraints;
        p.checks.push((value, object, property) => {
          const args: ValidationArguments = { targetName: cls.name, property, object, value, constraints };
          return instance.validate(value, args) === true;
        });
      }
    } else if (m.type === ValidationTypes.NESTED_VALIDATION) {
      const type = defaultMetadataStorage.findTypeMetadata(cls, m.propertyName);
      if (!type?.typeFunction || type.options?.discriminator) return null;
      const nested = planFor(type.typeFunction() as Ctor);
      if (!nested) return null;
      p.nested = nested;
    } else {
      return null;
    }
  }
  for (const name of properties.keys()) {
    if (defaultMetadataStorage.findTransformMetadatas(cls, name, TransformationType.PLAIN_TO_CLASS).length) return null;
    // A @Type without @ValidateNested converts a value (e.g. a string to a number).
    if (defaultMetadataStorage.findTypeMetadata(cls, name) && !properties.get(name)!.nested) return null;
  }
  // No rules at all (a plain Object, or a class class-validator would call unknown): the full pipe.
  if (properties.size === 0) return null;
  return { cls, properties, unruled: Object.keys(new cls()).filter((k) => !properties.has(k)) };
}

/** Whether a JSON value holds a key class-transformer would drop from its copy. */
function holdsProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (const v of value) if (holdsProtoKey(v)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (PROTO_KEYS.has(key)) return true;
    if (holdsProtoKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

function build(plan: ClassPlan, value: unknown): object | null {
  if (!isPlainObject(value)) return null;
  // class-transformer builds the instance (declared fields first), then copies every key; the
  // whitelist then deletes the keys without rules: the same as copying only those with rules.
  const out = new plan.cls() as Record<string, unknown>;
  for (const key of plan.unruled) delete out[key];
  for (const key of Object.keys(value)) {
    if (PROTO_KEYS.has(key)) return null;
    const p = plan.properties.get(key);
    if (!p) continue;
    const v = value[key];
    if (p.nested) {
      if (Array.isArray(v)) {
        const items: object[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const item = build(p.nested, v[i]);
          if (!item) return null;
          items[i] = item;
        }
        out[key] = items;
      } else if (v === null || v === undefined) {
        out[key] = v;
      } else {
        const item = build(p.nested, v);
        if (!item) return null;
        out[key] = item;
      }
    } else {
      if (holdsProtoKey(v)) return null;
      out[key] = v;
    }
  }
  for (const p of plan.properties.values()) {
    const v = out[p.name];
    if (p.conditions.some((c) => !c(out, v))) continue;
    for (const check of p.checks) if (!check(v, out, p.name)) return null;
    if (p.nested) {
      // class-validator refuses a nested value that is not an object or an array of objects.
      if (v === null || v === undefined || typeof v !== 'object') return null;
    }
  }
  return out;
}

/**
 * The validated instance of `cls` for a JSON request body, exactly as the full pipe would return
 * it, or null when the class does not qualify or the body is not certainly valid.
 */
export function fastBody(cls: Ctor, value: unknown): object | null {
  const plan = planFor(cls);
  return plan ? build(plan, value) : null;
}
