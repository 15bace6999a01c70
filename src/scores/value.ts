import { badRequest } from '../http/errors';
import type { DataType } from '../score-configs/schemas';

/** A config as the value check needs it. */
export interface ConfigShape {
  data_type: DataType;
  min: number | null;
  max: number | null;
  categories: { label: string; value: number }[] | null;
}

const invalid = (m: string) => badRequest(m, 'invalid_score_value');

/**
 * A score's value checked against its type and config, both columns filled: numeric within
 * [min, max]; categorical one of the config's categories (by value or label); boolean 1/0 or
 * true/false. Used by the API, the evaluators and human annotation alike.
 */
export function normalizeValue(
  type: DataType,
  config: ConfigShape | null,
  value: number | undefined,
  stringValue: string | undefined,
): { value: number | null; string_value: string | null } {
  if (type === 'numeric') {
    if (value === undefined) throw invalid('a numeric score needs value');
    if (config?.min != null && value < config.min)
      throw invalid(`value ${value} is below the config's min ${config.min}`);
    if (config?.max != null && value > config.max)
      throw invalid(`value ${value} is above the config's max ${config.max}`);
    return { value, string_value: stringValue ?? null };
  }
  if (type === 'boolean') {
    const b =
      value !== undefined
        ? value
        : stringValue === undefined
          ? undefined
          : ({ true: 1, false: 0 } as Record<string, number>)[stringValue.toLowerCase()];
    if (b !== 0 && b !== 1) throw invalid('a boolean score is value 1 or 0, or string_value true or false');
    if (value !== undefined && stringValue !== undefined && String(Boolean(value)) !== stringValue.toLowerCase())
      throw invalid('value and string_value disagree');
    return { value: b, string_value: b ? 'true' : 'false' };
  }
  if (!config) {
    if (stringValue === undefined) throw invalid('a categorical score without a config needs string_value');
    return { value: value ?? null, string_value: stringValue };
  }
  const hit = config.categories?.find((c) => (stringValue !== undefined ? c.label === stringValue : c.value === value));
  if (!hit || (value !== undefined && hit.value !== value)) {
    throw invalid(
      `not one of the config's categories: ${(config.categories ?? []).map((c) => `${c.label}=${c.value}`).join(', ')}`,
    );
  }
  return { value: hit.value, string_value: hit.label };
}
