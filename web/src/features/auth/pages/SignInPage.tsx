import { Alert, Button, Center, Code, Divider, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { useSessionStore } from '../../../session/context';
import { startOidc } from '../oidc';
import { useUiConfig } from '../useUiConfig';

/** Sign in with the identity provider (when configured) or a pasted token (the dev stack's link does it for you). */
export function SignInPage({ error }: { error?: string | null }) {
  const session = useSessionStore();
  const config = useUiConfig();
  const [oidcError, setOidcError] = useState<string | null>(null);
  const form = useForm({
    initialValues: { token: '' },
    validate: { token: (v) => (v.trim() ? null : 'Paste a token') },
  });
  const oidc = config.data?.oidc ?? null;
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" radius="lg" w="100%" maw={460}>
        <Stack gap="md">
          <div>
            <Title order={1} size="h2">
              LLM Gateway
            </Title>
            <Text c="dimmed" size="sm">
              Sign in to see your calls, traces and costs.
            </Text>
          </div>
          {(error || oidcError) && (
            <Alert color="red" variant="light" title="Could not sign in">
              {error ?? oidcError}
            </Alert>
          )}
          {oidc && (
            <>
              <Button size="md" onClick={() => startOidc(oidc).catch((e: Error) => setOidcError(e.message))}>
                Sign in with your identity provider
              </Button>
              <Divider label="or" labelPosition="center" />
            </>
          )}
          <form onSubmit={form.onSubmit(({ token }) => session.signIn(token.trim()))}>
            <Stack gap="sm">
              <Textarea
                label="Token"
                name="token"
                autosize
                minRows={3}
                maxRows={6}
                {...form.getInputProps('token')}
                description={
                  <>
                    On the dev stack the link <Code>npm run dev</Code> prints signs you in; or paste one from{' '}
                    <Code>npm run token</Code>.
                  </>
                }
              />
              <Button type="submit" variant={oidc ? 'default' : 'filled'}>
                Sign in with a token
              </Button>
            </Stack>
          </form>
        </Stack>
      </Paper>
    </Center>
  );
}
