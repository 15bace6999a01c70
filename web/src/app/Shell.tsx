import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  NativeSelect,
  Stack,
  Text,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { IconBuilding, IconFolder, IconLogout, IconMoon, IconSun } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useRouterState } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import type { Schema } from '../api/types';
import { NavItem } from '../components/Links';
import { useProjects } from '../hooks/useProjects';
import { useSession, useSessionStore } from '../session/context';
import { isActive, NAV } from './nav';
import classes from './Shell.module.css';

type Org = Schema<'Me'>['organizations'][number];

/**
 * The frame of every signed-in page (Mantine AppShell): a header with the theme toggle and the
 * user, a navigation bar that becomes a burger menu below 768 px, and the page in <main>.
 */
export function Shell({ me, org, children }: { me: Schema<'Me'>; org: Org | null; children: ReactNode }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  // Read at once (not after an effect), so the scope picker mounts in one place only.
  const mobile = useMediaQuery('(max-width: 47.99em)', false, { getInitialValueInEffect: false }) ?? false;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 248, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <a className={classes.skip} href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap" gap="sm">
          <Group gap="md" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'}
              aria-expanded={opened}
              aria-controls="main-nav"
            />
            <Text fw={700} size="lg" className={classes.brand}>
              LLM Gateway
            </Text>
            {org && !mobile && <ScopePicker me={me} inline />}
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="lg" truncate maw={320}>
              {me.user.email ?? me.user.sub}
              {org ? ` · ${org.role ?? 'viewer'}` : ''}
            </Text>
            <ThemeToggle />
            <SignOut />
          </Group>
        </Group>
      </AppShell.Header>
      {/* Off screen on a phone until the burger opens it: inert, so Tab does not walk hidden links. */}
      <AppShell.Navbar id="main-nav" component="nav" aria-label="Main" p="sm" inert={mobile && !opened}>
        {org && mobile && <ScopePicker me={me} inline={false} />}
        <AppShell.Section grow mt={mobile ? 'sm' : 0} className={classes.scroll}>
          {org && <NavLinks onNavigate={close} />}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id="main">{children}</AppShell.Main>
    </AppShell>
  );
}

/**
 * The sections and their pages. On a wide screen the rows are tight enough for the whole list to
 * fit a 900 px tall window (the section scrolls below that); in the burger menu they keep a
 * finger's height.
 */
function NavLinks({ onNavigate }: { onNavigate: () => void }) {
  const path = useRouterState({ select: (s) => s.location.pathname });
  return (
    <Stack gap={8}>
      {NAV.map((group) => (
        <div key={group.label}>
          <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" mb={2} lh={1.5}>
            {group.label}
          </Text>
          {group.items.map(({ to, label, icon: Icon }) => (
            <NavItem
              key={to}
              to={to}
              label={label}
              active={isActive(to, path)}
              onClick={onNavigate}
              leftSection={<Icon size={18} stroke={1.6} aria-hidden="true" />}
              className={classes.link}
              py={{ base: 6, sm: 3 }}
            />
          ))}
        </div>
      ))}
    </Stack>
  );
}

/**
 * The organization and project every page reads: switching either refetches with the new scope.
 * In the header on wide screens, at the top of the burger menu on phones.
 */
function ScopePicker({ me, inline }: { me: Schema<'Me'>; inline: boolean }) {
  const store = useSessionStore();
  const { orgId, projectId } = useSession();
  const projects = useProjects();
  const orgs = me.organizations.map((o) => ({ value: o.id, label: o.name }));
  const scopes = [
    { value: '', label: 'All projects' },
    ...(projects.data ?? []).map((p) => ({ value: p.id, label: p.name })),
  ];
  const Box = inline ? Group : Stack;
  return (
    <Box gap="xs" wrap="nowrap">
      <NativeSelect
        aria-label="Organization"
        label={inline ? undefined : 'Organization'}
        size={inline ? 'sm' : 'xs'}
        w={inline ? 190 : undefined}
        leftSection={<IconBuilding size={16} aria-hidden="true" />}
        value={orgId ?? ''}
        onChange={(e) => store.setOrg(e.currentTarget.value)}
        data={orgs}
      />
      <NativeSelect
        aria-label="Project"
        label={inline ? undefined : 'Project'}
        size={inline ? 'sm' : 'xs'}
        w={inline ? 190 : undefined}
        leftSection={<IconFolder size={16} aria-hidden="true" />}
        value={projectId ?? ''}
        onChange={(e) => store.setProject(e.currentTarget.value || null)}
        data={scopes}
      />
    </Box>
  );
}

function ThemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const dark = useComputedColorScheme('light') === 'dark';
  return (
    <ActionIcon
      variant="default"
      size="lg"
      aria-label="Dark theme"
      aria-pressed={dark}
      title={dark ? 'Switch to the light theme' : 'Switch to the dark theme'}
      onClick={() => setColorScheme(dark ? 'light' : 'dark')}
    >
      {dark ? <IconSun size={18} aria-hidden="true" /> : <IconMoon size={18} aria-hidden="true" />}
    </ActionIcon>
  );
}

function SignOut() {
  const store = useSessionStore();
  const client = useQueryClient();
  return (
    <Button
      variant="subtle"
      color="gray"
      size="sm"
      leftSection={<IconLogout size={16} aria-hidden="true" />}
      onClick={() => (store.signOut(), client.clear())}
    >
      Sign out
    </Button>
  );
}
