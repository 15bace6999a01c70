import { createTheme, type CSSVariablesResolver } from '@mantine/core';

/**
 * The one visual system (Mantine). Indigo at shades that keep white text above 4.5:1, and text
 * colours of tinted badges and alerts darkened (light) or lightened (dark) so every status colour
 * passes WCAG AA on its own tint: axe checks both themes in the browser tests.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
  headings: { fontWeight: '650' },
  cursorType: 'pointer',
});

const LIGHT_TEXT: Record<string, string> = {
  red: '#971f1f',
  green: '#20682f',
  yellow: '#8a4700',
  blue: '#124b80',
  indigo: '#283b95',
  grape: '#642275',
  teal: '#065f44',
  orange: '#a3360b',
  gray: '#343a40',
};
const DARK_TEXT: Record<string, string> = {
  red: '#ffa8a8',
  green: '#8ce99a',
  yellow: '#ffe066',
  blue: '#74c0fc',
  indigo: '#a5b6ff',
  grape: '#e599f7',
  teal: '#63e6be',
  orange: '#ffc078',
  gray: '#dee2e6',
};
const lightColor = (table: Record<string, string>) =>
  Object.fromEntries(Object.entries(table).map(([c, v]) => [`--mantine-color-${c}-light-color`, v]));

export const cssVariables: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    ...lightColor(LIGHT_TEXT),
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--mantine-color-anchor': 'var(--mantine-color-indigo-8)',
  },
  dark: {
    ...lightColor(DARK_TEXT),
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--mantine-color-anchor': 'var(--mantine-color-indigo-3)',
  },
});

/** Series colours of charts (uPlot draws on a canvas, outside the CSS variables). */
export const SERIES = ['#4c6ef5', '#e8590c', '#12b886', '#be4bdb'];
