import { NativeSelect, TextInput } from '@mantine/core';

/**
 * A free-text filter bound to a URL search param: applied on Enter or when leaving the field,
 * so typing does not refetch on every key. Remounts when the URL value changes elsewhere.
 */
export function TextFilter({
  label,
  value,
  onApply,
  placeholder = 'any',
  w = 160,
}: {
  label: string;
  value: string | undefined;
  onApply: (v: string | undefined) => void;
  placeholder?: string;
  w?: number;
}) {
  const apply = (v: string) => {
    const next = v.trim() || undefined;
    if (next !== value) onApply(next);
  };
  return (
    <TextInput
      key={value ?? ''}
      label={label}
      size="sm"
      w={w}
      defaultValue={value ?? ''}
      placeholder={placeholder}
      onKeyDown={(e) => e.key === 'Enter' && apply(e.currentTarget.value)}
      onBlur={(e) => apply(e.currentTarget.value)}
    />
  );
}

/** A choice bound to a URL search param; the empty option clears it. */
export function SelectFilter<V extends string>({
  label,
  value,
  options,
  onApply,
  anyLabel = 'any',
  w = 160,
}: {
  label: string;
  value: V | undefined;
  options: readonly (V | { value: V; label: string })[];
  onApply: (v: V | undefined) => void;
  anyLabel?: string | null;
  /** Pixels, or a share of a grid cell (`'100%'`) where filters sit two abreast on a phone. */
  w?: number | string;
}) {
  const data = options.map((o) => (typeof o === 'string' ? { value: o, label: o.replace(/_/g, ' ') } : o));
  return (
    <NativeSelect
      label={label}
      size="sm"
      w={w}
      value={value ?? ''}
      onChange={(e) => onApply(data.find((o) => o.value === e.currentTarget.value)?.value ?? undefined)}
      data={anyLabel === null ? data : [{ value: '', label: anyLabel }, ...data]}
    />
  );
}
