import { notifications } from '@mantine/notifications';

/** A short confirmation (or failure) in the corner; its close button is named for screen readers. */
export const toast = (message: string, color: 'green' | 'red' = 'green') =>
  notifications.show({ message, color, closeButtonProps: { 'aria-label': 'Dismiss' } });
