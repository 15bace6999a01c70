import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderUi } from '../../../test/render';
import type { Run } from '../lib/runs';
import { ItemRunCards } from './ItemRunCards';

const run = (item: string, patch: Partial<Run> = {}): Run => ({
  item_id: item,
  repetition: 0,
  status: 'completed',
  output: `answer ${item}`,
  error: null,
  scores: { exact: 1 },
  latency_ms: 37,
  cost_usd: 0.000006,
  request_id: null,
  trace_id: null,
  ...patch,
});
const rows = [run('i0'), run('i3', { status: 'error', output: null, error: 'refused', scores: {}, cost_usd: null })];

describe('<ItemRunCards>', () => {
  // The list scrolls with the page: the virtualiser keeps the window's offset as cards are measured (jsdom has none).
  beforeEach(() => void vi.spyOn(window, 'scrollTo').mockImplementation(() => {}));
  afterEach(() => vi.restoreAllMocks());

  it('shows each run as a card: its name, status, output or error, scores, latency and cost', () => {
    renderUi(<ItemRunCards label="Item runs" rows={rows} onOpen={() => {}} onEnd={() => {}} />);
    const cards = within(screen.getByRole('list', { name: 'Item runs' })).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    const values = (card: HTMLElement) =>
      within(card)
        .getAllByRole('term')
        .map((t) => [t.textContent, t.nextElementSibling?.textContent]);
    expect(within(cards[0]!).getByRole('button').textContent).toBe('i0 · run #1');
    expect(values(cards[0]!)).toEqual([
      ['Output', 'answer i0'],
      ['Scores', 'exact 1'],
      ['Latency', '37 ms'],
      ['Cost', '$0.000006'],
    ]);
    expect(within(cards[1]!).getByText('error')).toBeTruthy();
    expect(values(cards[1]!)).toEqual([
      ['Error', 'refused'],
      ['Scores', '—'],
      ['Latency', '37 ms'],
      ['Cost', '—'],
    ]);
  });

  it('opens a run from its name (a click or Enter) and asks for more once the end is in view', () => {
    const onOpen = vi.fn();
    const onEnd = vi.fn();
    renderUi(<ItemRunCards label="Item runs" rows={rows} onOpen={onOpen} onEnd={onEnd} />);
    fireEvent.click(screen.getByRole('button', { name: 'i3 · run #1' }));
    expect(onOpen).toHaveBeenCalledWith(rows[1]);
    expect(onEnd).toHaveBeenCalled();
  });
});
