import { Button, FileInput, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { ErrorState } from '../../../components/QueryState';
import { useUploadItems } from '../hooks/useDatasets';
import { splitError } from '../lib/values';
import { ChangeSummary } from './ChangeSummary';

const formatOf = (name: string): 'csv' | 'jsonl' | null =>
  /\.csv$/i.test(name) ? 'csv' : /\.(jsonl|ndjson)$/i.test(name) ? 'jsonl' : null;

/**
 * Upload a CSV (header row: id, input, expected_output, split, metadata) or JSON Lines file; refused rows are listed.
 */
export function UploadItems({
  datasetId,
  projectId,
  onClose,
}: {
  datasetId: string;
  projectId: string;
  onClose: () => void;
}) {
  const upload = useUploadItems(datasetId, projectId);
  const [file, setFile] = useState<File | null>(null);
  const [split, setSplit] = useState('');
  const format = file ? formatOf(file.name) : null;
  const problem = file && !format ? 'A .csv, .jsonl or .ndjson file' : splitError(split);
  const send = async () => {
    if (!file || !format || problem) return;
    upload.mutate({ text: await file.text(), format, ...(split.trim() ? { split: split.trim() } : {}) });
  };
  return (
    <Modal opened onClose={onClose} title="Upload items" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          CSV with a header row (<code>id</code>, <code>input</code>
          {', '}
          <code>expected_output</code>, <code>split</code>, <code>metadata</code>; cells holding JSON are read as JSON),
          or JSON Lines with one item object a line. An existing id updates its item. Up to 10,000 rows.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <FileInput
            label="File"
            placeholder="Choose a file"
            accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson"
            clearable
            clearButtonProps={{ 'aria-label': 'Clear the file' }}
            value={file}
            onChange={(f) => (setFile(f), upload.reset())}
            error={file && !format ? problem : undefined}
            leftSection={<IconUpload size={14} aria-hidden />}
          />
          <TextInput
            label="Split"
            placeholder="optional"
            description="For rows that name none"
            value={split}
            onChange={(e) => setSplit(e.currentTarget.value)}
            error={splitError(split)}
          />
        </SimpleGrid>
        {upload.error && <ErrorState error={upload.error} title="The upload was refused" />}
        {upload.data && <ChangeSummary change={upload.data} />}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            {upload.data ? 'Done' : 'Cancel'}
          </Button>
          <Button onClick={() => void send()} loading={upload.isPending} disabled={!file || Boolean(problem)}>
            Upload
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
