import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderUi } from '../test/render';
import { type CardCol, ResponsiveTable } from './RowCards';

interface Row {
  id: string;
  name: string;
  status: number;
}
const rows: Row[] = [
  { id: 'a', name: 'first', status: 200 },
  { id: 'b', name: 'second', status: 503 },
];
const columns: CardCol<Row>[] = [
  { key: 's', label: 'HTTP', numeric: true, render: (r) => r.status },
  { key: 'n', label: 'Name', card: 'title', render: (r) => <button type="button">{r.name}</button> },
];
const widthIs = (phone: boolean) => {
  const real = window.matchMedia;
  vi.spyOn(window, 'matchMedia').mockImplementation((q) => ({ ...real(q), matches: phone && q.includes('max-width') }));
};

describe('<ResponsiveTable>', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is a table from the sm breakpoint up', () => {
    widthIs(false);
    renderUi(<ResponsiveTable caption="Log" rows={rows} columns={columns} rowKey={(r) => r.id} />);
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.queryByRole('list', { name: 'Log' })).toBeNull();
  });

  it('is a card per row on a phone: the title first, every value under its label, the same controls', () => {
    widthIs(true);
    renderUi(<ResponsiveTable caption="Log" rows={rows} columns={columns} rowKey={(r) => r.id} />);
    expect(screen.queryByRole('table')).toBeNull();
    const cards = within(screen.getByRole('list', { name: 'Log' })).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    const terms = within(cards[1]!).getAllByRole('term');
    expect(terms.map((t) => t.textContent)).toEqual(['Name', 'HTTP']);
    expect(
      within(cards[1]!)
        .getAllByRole('definition')
        .map((d) => d.textContent),
    ).toEqual(['second', '503']);
    expect(within(cards[0]!).getByRole('button', { name: 'first' })).toBeTruthy();
  });
});
