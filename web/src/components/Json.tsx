import { Code, Text } from '@mantine/core';

/**
 * A recorded payload: text as it is, anything else as indented JSON. Nothing recorded reads as a
 * sentence (never `null`). Focusable, since it scrolls.
 */
export function JsonBlock({
  value,
  label,
  empty = 'Nothing recorded',
  maxHeight = 360,
}: {
  value: unknown;
  label: string;
  empty?: string;
  maxHeight?: number | string;
}) {
  if (value === null || value === undefined || value === '')
    return (
      <Text c="dimmed" size="sm" fs="italic">
        {empty}
      </Text>
    );
  const text = typeof value === 'string' ? pretty(value) : JSON.stringify(value, null, 2);
  return (
    <Code
      block
      tabIndex={0}
      aria-label={label}
      style={{ maxHeight, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
    >
      {text}
    </Code>
  );
}

/** A string that holds JSON (stored request bodies) is indented; other text is left alone. */
export function pretty(s: string): string {
  const t = s.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return s;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return s;
  }
}
