import { z } from 'zod';
import { MAX_FAIRNESS_KEY_BYTES } from '../flow/priority';
import { WebhookUrlsSchema } from '../webhooks/url';
import {
  settingNamesOf,
  SETTINGS,
  type Layer,
  type SettingName,
  type SettingsOf,
  type SettingType,
  type SettingValue,
} from './declarations';
import { renamedMessage, type RenamedFields } from './renamed';

/** The zod schema of one setting's value, with messages that name the setting and its bounds. */
export function settingSchema(name: SettingName): z.ZodType {
  return schemaOf(name, SETTINGS[name].type);
}

function schemaOf(name: string, type: SettingType): z.ZodType {
  switch (type.kind) {
    case 'int': {
      const message = `${name} must be a whole number from ${type.min.toLocaleString('en-US')} to ${type.max.toLocaleString('en-US')}`;
      return z.number({ error: message }).int(message).min(type.min, message).max(type.max, message);
    }
    case 'number': {
      const low = type.exclusiveMin ? `more than ${type.min}` : `from ${type.min}`;
      const message = `${name} must be a number ${low} to ${type.max.toLocaleString('en-US')}`;
      const base = z.number({ error: message }).max(type.max, message);
      return type.exclusiveMin ? base.gt(type.min, message) : base.min(type.min, message);
    }
    case 'boolean':
      return z.boolean({ error: `${name} must be true or false` });
    case 'enum':
      return z.enum(type.values as [string, ...string[]], {
        error: `${name} must be one of ${type.values.map((v) => `"${v}"`).join(', ')}`,
      });
    case 'string':
      return z.string().trim().min(1, `${name} must not be empty`);
    case 'names':
      return type.values
        ? z.array(
            z.enum(type.values as [string, ...string[]], {
              error: `${name} may hold only ${type.values.map((v) => `"${v}"`).join(', ')}`,
            }),
          )
        : z.array(z.string().trim().min(1, `${name} must not hold an empty name`));
    case 'webhooks':
      return WebhookUrlsSchema;
    case 'fairnessKey':
      return z
        .string()
        .min(1, `${name} must not be empty`)
        .refine(
          (key) => new TextEncoder().encode(key).length <= MAX_FAIRNESS_KEY_BYTES,
          `${name} must be at most ${MAX_FAIRNESS_KEY_BYTES} bytes (UTF-8)`,
        );
  }
}

/** The zod shape of the settings a layer may give, each optional, for a schema of that layer to spread. */
export function settingsShape<L extends Layer>(
  layer: L,
): { [K in SettingsOf<L>]: z.ZodOptional<z.ZodType<SettingValue<K>>> } {
  return Object.fromEntries(
    settingNamesOf(layer).map((name) => [name, settingSchema(name).optional().describe(SETTINGS[name].doc)]),
  ) as never;
}

/**
 * Fields that were renamed, for a strict object's shape: each is refused, when given, with a
 * message naming its new name ("`objective` is now `goal`") instead of zod's "unrecognized key".
 */
export function renamedFieldsShape(renamed: RenamedFields): Record<string, z.ZodOptional<z.ZodNever>> {
  return Object.fromEntries(
    Object.entries(renamed).map(([old, now]) => {
      const message = renamedMessage(old, now);
      // Not `z.never()`: an OpenAPI document cannot describe it. Typed `never`, so TypeScript refuses the old name too.
      const refused = z
        .unknown()
        .superRefine((_value, ctx) => ctx.addIssue({ code: 'custom', message }))
        .optional()
        .meta({ deprecated: true, description: message });
      return [old, refused as unknown as z.ZodOptional<z.ZodNever>];
    }),
  );
}
