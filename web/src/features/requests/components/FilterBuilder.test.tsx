import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderUi } from '../../../test/render';
import { FilterBuilder } from './FilterBuilder';

const change = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('<FilterBuilder>', () => {
  it('builds rows and applies them as query parameters', () => {
    const onApply = vi.fn();
    renderUi(<FilterBuilder value={{}} onApply={onApply} />);
    fireEvent.click(screen.getByText('Add filter'));
    change('Filter 1: value', 'gpt-4o');
    fireEvent.click(screen.getByText('Add filter'));
    change('Filter 2: field', 'cost');
    expect((screen.getByLabelText('Filter 2: operator') as HTMLSelectElement).value).toBe('gte');
    change('Filter 2: value', '0.05');
    fireEvent.click(screen.getByText('Add filter'));
    change('Filter 3: field', 'property');
    change('Filter 3: property name', 'tier');
    change('Filter 3: value', 'gold');
    fireEvent.click(screen.getByText('Apply filters'));
    expect(onApply).toHaveBeenCalledTimes(1);
    expect(onApply).toHaveBeenLastCalledWith({ model: 'gpt-4o', min_cost: '0.05', property: 'tier:gold' });
  });

  it('marks a value the API would refuse and applies nothing', () => {
    const onApply = vi.fn();
    renderUi(<FilterBuilder value={{}} onApply={onApply} />);
    fireEvent.click(screen.getByText('Add filter'));
    change('Filter 1: field', 'status');
    change('Filter 1: value', '2xxx');
    fireEvent.click(screen.getByText('Apply filters'));
    expect(onApply).not.toHaveBeenCalled();
    expect(screen.getByText('A status like 200 or a class like 4xx')).toBeTruthy();
  });

  it('opens with the URL’s filters as rows, and removing one applies the rest', () => {
    const onApply = vi.fn();
    renderUi(<FilterBuilder value={{ status: '5xx', max_latency_ms: '900', cache_hit: 'true' }} onApply={onApply} />);
    expect(screen.getAllByTestId('filter-row')).toHaveLength(3);
    expect((screen.getByLabelText('Filter 1: field') as HTMLSelectElement).value).toBe('status');
    expect((screen.getByLabelText('Filter 2: operator') as HTMLSelectElement).value).toBe('lte');
    expect((screen.getByLabelText('Filter 3: value') as HTMLSelectElement).value).toBe('true');
    fireEvent.click(screen.getByLabelText('Remove filter 1'));
    expect(onApply).toHaveBeenLastCalledWith({ max_latency_ms: '900', cache_hit: 'true' });
    fireEvent.click(screen.getByText('Clear all'));
    expect(onApply).toHaveBeenLastCalledWith({});
  });
});
