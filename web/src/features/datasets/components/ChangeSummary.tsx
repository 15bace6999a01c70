import { Alert, List, Text } from '@mantine/core';
import type { Schema } from '../../../api/types';

/** What a write did: added, updated, unchanged, and the rows refused (by row number). */
export function ChangeSummary({ change }: { change: Schema<'DatasetChange'> }) {
  const bad = change.errors.length > 0;
  return (
    <Alert
      variant="light"
      color={bad ? 'yellow' : 'green'}
      title={`${change.added} added · ${change.updated} updated · ${change.unchanged} unchanged`}
      role="status"
      data-testid="change-summary"
    >
      {bad ? (
        <>
          <Text size="sm">
            {change.errors.length} row{change.errors.length === 1 ? ' was' : 's were'} refused:
          </Text>
          <List size="sm" spacing={2} mt={4}>
            {change.errors.slice(0, 20).map((e) => (
              <List.Item key={e.row}>
                Row {e.row}: {e.error}
              </List.Item>
            ))}
          </List>
        </>
      ) : (
        <Text size="sm">
          {change.version ? 'Saved as a new version of the dataset.' : 'Nothing changed, so no new version.'}
        </Text>
      )}
    </Alert>
  );
}
