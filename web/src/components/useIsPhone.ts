import { useMantineTheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';

/**
 * True below the theme's `sm` breakpoint (768 px), where the shell collapses to a burger. Read at
 * once, not in an effect: a phone never renders the wide table first and then swaps it.
 */
export function useIsPhone(): boolean {
  const sm = parseFloat(useMantineTheme().breakpoints.sm);
  // Just under `sm`, as Mantine's own `hiddenFrom="sm"` and the shell's query draw the line.
  return useMediaQuery(`(max-width: ${sm - 0.01}em)`, false, { getInitialValueInEffect: false }) ?? false;
}
