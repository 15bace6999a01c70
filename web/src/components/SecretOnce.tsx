import { Alert, Button, Code, CopyButton, Group, Text } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';

/** A secret the API shows once (a key, a signing secret, a share link): copy it now. */
export function SecretOnce({
  title,
  value,
  testId,
  onDone,
}: {
  title: string;
  value: string;
  testId: string;
  onDone?: () => void;
}) {
  return (
    <Alert color="indigo" variant="light" title={title} icon={<IconKey aria-hidden="true" />} role="status">
      <Text size="sm" mb="xs">
        Shown once: copy it now, it cannot be read again.
      </Text>
      <Code block data-testid={testId} style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
        {value}
      </Code>
      <Group gap="sm" mt="sm">
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="xs" variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
        {onDone && (
          <Button size="xs" variant="subtle" onClick={onDone}>
            Done
          </Button>
        )}
      </Group>
    </Alert>
  );
}
