import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

/** A destructive action behind a confirmation dialog (instead of the browser's `confirm`). */
export function ConfirmButton({
  children,
  title,
  message,
  confirm = 'Delete',
  dismiss = 'Cancel',
  onConfirm,
  loading,
  ...button
}: ButtonProps & {
  children: ReactNode;
  title: string;
  message: ReactNode;
  confirm?: string;
  dismiss?: string;
  onConfirm: () => void;
}) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button variant="light" color="red" size="xs" {...button} loading={loading} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
        <Text size="sm">{message}</Text>
        <Group justify="flex-end" mt="lg" gap="sm">
          <Button variant="default" onClick={close}>
            {dismiss}
          </Button>
          <Button color="red.9" onClick={() => (close(), onConfirm())}>
            {confirm}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
