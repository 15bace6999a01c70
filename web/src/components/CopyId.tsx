import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A small copy button, named after what it copies ("Copy the workflow id"), that says when it has. */
export function CopyAction({ value, what }: { value: string; what: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : `Copy the ${what}`} withArrow position="top">
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            size="sm"
            onClick={copy}
            aria-label={copied ? `Copied the ${what}` : `Copy the ${what}`}
          >
            {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/**
 * An id people paste elsewhere (a Temporal workflow id into `temporal workflow describe`, a
 * ticket): in monospace with a copy button. `short` cuts it to its start in tables; the copy and
 * the tooltip of the text keep the whole id.
 */
export function CopyId({ value, what, short }: { value: string; what: string; short?: number }) {
  const text = short && value.length > short ? `${value.slice(0, short)}…` : value;
  return (
    <Group gap={4} wrap="nowrap" align="center">
      <Code title={value} style={{ overflowWrap: 'anywhere', whiteSpace: short ? 'nowrap' : 'normal' }}>
        {text}
      </Code>
      <CopyAction value={value} what={what} />
    </Group>
  );
}
