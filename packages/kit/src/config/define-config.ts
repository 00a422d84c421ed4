/**
 * A service's configuration declared once: the environment keys as one zod shape (each key with
 * its transform), the checks across keys, and `from`, which shapes the parsed keys into what the
 * service reads. The config's type is inferred from `from`; no interface repeats the keys.
 *
 * `parse(env, overrides)` reads the environment (every bad key listed at once, parse-config.ts);
 * `overrides` replace keys with values already typed (the embedded stack's wiring: a port number,
 * the auth service's URL, the token tag keys as a list), never strings to be parsed again. They
 * are trusted, as the code that holds them: no schema of the key runs on them.
 */
import { z } from 'zod';
import type { Env } from './parse-config.ts';
import { parseConfig } from './parse-config.ts';

/** The keys of a config: a zod object's shape. */
export type EnvShape = z.ZodRawShape;

/** The parsed environment of a shape: every key after its transform. */
export type EnvValues<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

/** Keys replaced by typed values, each of the type its own schema produces. */
export type ConfigOverrides<S extends z.ZodRawShape> = { readonly [K in keyof S]?: z.output<S[K]> };

/** Reports a problem found across keys, under `key` (listed with the other bad keys). */
export type ConfigIssue = (key: string, message: string) => void;

/** A check across keys, run once every key parsed on its own (e.g. "set together or not at all"). */
export type ConfigCheck<S extends z.ZodRawShape> = (env: EnvValues<S>, issue: ConfigIssue) => void;

export interface ConfigSpec<S extends z.ZodRawShape, C> {
  readonly env: S;
  readonly checks?: readonly ConfigCheck<S>[];
  from(env: EnvValues<S>): C;
}

export interface ConfigDefinition<S extends z.ZodRawShape, C> {
  /** The keys, for documentation and for a command that reads a few of them. */
  readonly env: S;
  parse(env: Env, overrides?: ConfigOverrides<S>): C;
}

export function defineConfig<S extends z.ZodRawShape, C>(spec: ConfigSpec<S, C>): ConfigDefinition<S, C> {
  return {
    env: spec.env,
    parse(env, overrides = {}) {
      // A misspelt key would otherwise be ignored without a word (TypeScript does not catch it in
      // an inferred generic's return value).
      const unknown = Object.keys(overrides).filter((key) => !Object.hasOwn(spec.env, key));
      if (unknown.length > 0)
        throw new Error(`config overrides name no key of this config: ${unknown.join(', ')}`);
      const replaced = Object.fromEntries(
        Object.entries(overrides)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => [
            key,
            z
              .unknown()
              .optional()
              .transform(() => value),
          ]),
      );
      const schema = z
        .object({ ...spec.env, ...replaced })
        .superRefine((values, ctx) => {
          const issue: ConfigIssue = (key, message) => ctx.addIssue({ code: 'custom', path: [key], message });
          for (const check of spec.checks ?? []) check(values as EnvValues<S>, issue);
        })
        .transform((values) => spec.from(values as EnvValues<S>));
      return parseConfig(schema, env);
    },
  };
}
