import { Tabs } from '@mantine/core';
import { getRouteApi } from '@tanstack/react-router';
import { Page } from '../../../components/Page';
import { Exports } from '../components/Exports';
import { Members } from '../components/Members';
import { Plan } from '../components/Plan';
import { ProjectsAndKeys } from '../components/ProjectsAndKeys';
import { ProviderKeys } from '../components/ProviderKeys';
import { SavedFilters } from '../components/SavedFilters';
import { SETTINGS_TABS } from '../search';

const route = getRouteApi('/app/settings');
const LABELS: Record<(typeof SETTINGS_TABS)[number], string> = {
  projects: 'Projects and keys',
  providers: 'Provider keys',
  members: 'Members',
  exports: 'Exports',
  plan: 'Plan and limits',
  filters: 'Saved filters',
};

/**
 * Projects, keys, provider keys, members, exports, plan and limits, saved filters: one tab each, the tab in the URL.
 */
export function SettingsPage() {
  const { tab = 'projects' } = route.useSearch();
  const navigate = route.useNavigate();
  return (
    <Page title="Settings" description="The organization: its projects, keys, people and plan.">
      <Tabs
        value={tab}
        keepMounted={false}
        onChange={(v) => void navigate({ search: { tab: SETTINGS_TABS.find((t) => t === v) }, replace: true })}
      >
        <Tabs.List>
          {SETTINGS_TABS.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {LABELS[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="projects" pt="lg">
          <ProjectsAndKeys />
        </Tabs.Panel>
        <Tabs.Panel value="providers" pt="lg">
          <ProviderKeys />
        </Tabs.Panel>
        <Tabs.Panel value="members" pt="lg">
          <Members />
        </Tabs.Panel>
        <Tabs.Panel value="exports" pt="lg">
          <Exports />
        </Tabs.Panel>
        <Tabs.Panel value="plan" pt="lg">
          <Plan />
        </Tabs.Panel>
        <Tabs.Panel value="filters" pt="lg">
          <SavedFilters />
        </Tabs.Panel>
      </Tabs>
    </Page>
  );
}
