import { MantineProvider } from '@mantine/core';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { theme } from '../theme';

/** A component inside the app's Mantine theme, as main.tsx mounts it. */
export const renderUi = (ui: ReactElement) => render(<MantineProvider theme={theme}>{ui}</MantineProvider>);
