import { Button, Code, Group, Modal, NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import type { Schema } from '../../../api/types';
import { useCurrent } from '../../../app/current';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { DataTable } from '../../../components/DataTable';
import { Section } from '../../../components/Page';
import { ErrorState, QueryState } from '../../../components/QueryState';
import { useProjects } from '../../../hooks/useProjects';
import { useSession } from '../../../session/context';
import * as fmt from '../../../lib/format';
import {
  useCreateSavedFilter,
  useDeleteSavedFilter,
  useSavedFilters,
  useUpdateSavedFilter,
  type SavedFilterBody,
} from '../hooks/useSettings';
import { ShareStatsView } from './ShareStatsView';

type Saved = Schema<'SavedFilter'>;
type View = SavedFilterBody['view'];
type Visibility = NonNullable<SavedFilterBody['visibility']>;
const VIEWS = ['requests', 'traces', 'sessions', 'users', 'stats'] as const satisfies readonly View[];

const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

interface Values {
  name: string;
  view: View;
  filter: string;
  visibility: Visibility;
  project_id: string;
}

/** `model=gpt-4o` lines ⇄ the filter object (values stay strings; the view checks them when used). */
const toLines = (f: Saved['filter']) =>
  Object.entries(f)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join('\n');
const parseLines = (s: string) =>
  Object.fromEntries(
    s
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => {
        const i = l.indexOf('=');
        return [l.slice(0, i).trim(), l.slice(i + 1).trim()];
      }),
  );
const badLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .find((l) => !/^[a-z][a-z0-9_]{0,63}\s*=/.test(l));

/** Named filters of the request log, traces, sessions, users and the overview; private or shared with the project. */
export function SavedFilters() {
  const { canWrite } = useCurrent();
  const list = useSavedFilters();
  const remove = useDeleteSavedFilter();
  const [editing, setEditing] = useState<Saved | 'new' | null>(null);
  // Anyone keeps private filters; project filters are changed by admins and editors (or their owner).
  const mayEdit = (f: Saved) => f.mine || (canWrite && f.visibility === 'project');
  return (
    <Section
      title="Saved filters"
      actions={
        <Button size="xs" onClick={() => setEditing('new')}>
          New saved filter
        </Button>
      }
    >
      <QueryState
        query={list}
        what="saved filters"
        empty={{
          title: 'No saved filters yet',
          description:
            'Save a filter you use often: the overview offers it, ' +
            'and project filters are shared with everyone in the project.',
          action: <Button onClick={() => setEditing('new')}>New saved filter</Button>,
        }}
      >
        {(rows) => (
          <DataTable
            caption="Saved filters"
            rows={rows}
            rowKey={(f) => f.id}
            minWidth={720}
            columns={[
              { key: 'n', label: 'Name', render: (f) => f.name },
              { key: 'v', label: 'View', render: (f) => f.view },
              {
                key: 'f',
                label: 'Filter',
                render: (f) => (
                  <Code>
                    {Object.entries(f.filter)
                      .map(([k, v]) => `${k}=${String(v)}`)
                      .join(' · ') || 'everything'}
                  </Code>
                ),
              },
              { key: 's', label: 'Visible to', render: (f) => (f.visibility === 'project' ? 'the project' : 'me') },
              { key: 'u', label: 'Updated', render: (f) => fmt.time(f.updated_at) },
              {
                key: 'a',
                label: 'Actions',
                render: (f) => (
                  <Group gap="xs" wrap="nowrap">
                    {mayEdit(f) && (
                      <>
                        <Button size="xs" variant="default" aria-label={`Edit ${f.name}`} onClick={() => setEditing(f)}>
                          Edit
                        </Button>
                        <ConfirmButton
                          title={`Delete ${f.name}?`}
                          message="It disappears from every view that offers it."
                          aria-label={`Delete ${f.name}`}
                          loading={remove.isPending && remove.variables === f.id}
                          onConfirm={() => remove.mutate(f.id)}
                        >
                          Delete
                        </ConfirmButton>
                      </>
                    )}
                    {/* A stats view is shared read-only by admins and editors (the API's rule for every share). */}
                    {canWrite && f.view === 'stats' && <ShareStatsView saved={f} />}
                  </Group>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {remove.error && <ErrorState error={remove.error} title="Could not delete the saved filter" />}
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New saved filter' : editing ? `Edit ${editing.name}` : ''}
      >
        {editing !== null && <FilterForm saved={editing === 'new' ? null : editing} onDone={() => setEditing(null)} />}
      </Modal>
    </Section>
  );
}

function FilterForm({ saved, onDone }: { saved: Saved | null; onDone: () => void }) {
  const { projectId } = useSession();
  const { canWrite } = useCurrent();
  const projects = useProjects();
  const create = useCreateSavedFilter();
  const update = useUpdateSavedFilter();
  const form = useForm<Values>({
    initialValues: saved
      ? {
          name: saved.name,
          view: VIEWS.find((v) => v === saved.view) ?? 'requests',
          filter: toLines(saved.filter),
          visibility: saved.visibility === 'project' ? 'project' : 'private',
          project_id: saved.project_id,
        }
      : { name: '', view: 'requests', filter: 'model=gpt-4o-mini', visibility: 'private', project_id: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name it'),
      filter: (v) => {
        const bad = badLine(v);
        return bad ? `“${bad}” is not name=value (lower-case name)` : null;
      },
    },
  });
  const project = form.values.project_id || projectId || projects.data?.[0]?.id || '';
  const submit = form.onSubmit((v) => {
    const common = { name: v.name.trim(), filter: parseLines(v.filter), visibility: v.visibility };
    if (saved) update.mutate({ id: saved.id, body: common }, { onSuccess: onDone });
    else create.mutate({ ...common, view: v.view, ...(project ? { project_id: project } : {}) }, { onSuccess: onDone });
  });
  const error = create.error ?? update.error;
  return (
    <form onSubmit={submit} aria-label="Saved filter">
      <Stack gap="sm">
        <TextInput label="Name" data-autofocus {...form.getInputProps('name')} />
        <Group grow>
          <NativeSelect label="View" disabled={!!saved} data={[...VIEWS]} {...form.getInputProps('view')} />
          {canWrite && (
            <NativeSelect
              label="Visible to"
              data={[
                { value: 'private', label: 'me' },
                { value: 'project', label: 'the project' },
              ]}
              {...form.getInputProps('visibility')}
            />
          )}
        </Group>
        {!saved && !projectId && projects.data && projects.data.length > 1 && (
          <NativeSelect
            label="Project"
            data={projects.data.map((p) => ({ value: p.id, label: p.name }))}
            value={project}
            onChange={(e) => form.setFieldValue('project_id', e.currentTarget.value)}
          />
        )}
        <Textarea
          label="Filter"
          description="One name=value a line, as the view's API takes them (model=gpt-4o, status=5xx)"
          autosize
          minRows={3}
          styles={MONO}
          {...form.getInputProps('filter')}
        />
        {error && <ErrorState error={error} title="Could not save the filter" />}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {saved ? 'Save' : 'Create saved filter'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
