import { Button, Group, Paper, Radio, Stack, Text, Title } from '@mantine/core';
import { useId, useState } from 'react';
import type { Schema } from '../../../api/types';
import { ErrorState } from '../../../components/QueryState';
import { SecretOnce } from '../../../components/SecretOnce';
import * as fmt from '../../../lib/format';
import { useRotateSecret } from '../hooks/useWebhooks';

// How long the replaced secret keeps signing (the API takes 0–604800 s; a day by default).
const OVERLAPS = [
  { seconds: 0, label: 'Not at all (ends now)' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 604_800, label: '7 days' },
] as const;

/** Until when the secret a rotation replaced still signs, while it does; nothing otherwise. */
export function previousValidUntil(w: Schema<'Webhook'>): string | null {
  const until = w.previous_secret_expires_at;
  return until && Date.parse(until) > Date.now() ? until : null;
}

/**
 * Rotate the signing secret: the new one is shown once, here; the previous one also signs
 * (a second `webhook-signature` entry) for the overlap chosen, so receivers can switch in time.
 */
export function RotateSecret({ webhook, onDone }: { webhook: Schema<'Webhook'>; onDone: () => void }) {
  const rotate = useRotateSecret();
  const uid = useId();
  const [seconds, setSeconds] = useState('86400');
  const rotated = rotate.data;
  const until = rotated && previousValidUntil(rotated);
  return (
    <Paper withBorder p="md" aria-labelledby={`${uid}-title`} component="section">
      <Stack gap="sm">
        <Title order={3} size="h5" id={`${uid}-title`}>
          Rotate the signing secret
        </Title>
        {!rotated && (
          <>
            <Text size="sm" c="dimmed">
              A new secret signs every attempt from now on, retries included. During the overlap each delivery carries a
              signature with both, so the receiver can switch to the new one when it likes.
            </Text>
            <Radio.Group label="The previous secret stays valid" value={seconds} onChange={setSeconds}>
              <Group gap="md" mt={6}>
                {OVERLAPS.map((o) => (
                  <Radio key={o.seconds} value={String(o.seconds)} label={o.label} />
                ))}
              </Group>
            </Radio.Group>
            {rotate.error && <ErrorState error={rotate.error} title="Could not rotate the secret" />}
            <Group gap="sm">
              <Button
                loading={rotate.isPending}
                onClick={() => rotate.mutate({ id: webhook.id, seconds: Number(seconds) })}
              >
                Rotate secret
              </Button>
              <Button variant="default" onClick={onDone}>
                Cancel
              </Button>
            </Group>
          </>
        )}
        {rotated && (
          <>
            <SecretOnce title="New signing secret" value={rotated.secret} testId="rotated-secret" onDone={onDone} />
            <Text size="sm">
              {until
                ? `The previous secret stays valid until ${fmt.time(until)}.`
                : 'The previous secret no longer signs: only the new one does.'}
            </Text>
          </>
        )}
      </Stack>
    </Paper>
  );
}
