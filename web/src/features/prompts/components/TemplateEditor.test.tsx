import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderUi } from '../../../test/render';
import { editable, type Template } from '../lib/template';
import { TemplateEditor } from './TemplateEditor';

let last: Template = '';
function Harness({ initial }: { initial: Template }) {
  const [value, setValue] = useState<Template>(initial);
  last = value;
  return <TemplateEditor value={value} onChange={setValue} />;
}

describe('<TemplateEditor>', () => {
  it('turns text into chat messages and back without losing words', () => {
    renderUi(<Harness initial="Greet {{name}}." />);
    expect(screen.getByText('Variables: name')).toBeTruthy();
    fireEvent.click(screen.getByText('Chat messages'));
    expect(last).toEqual([{ role: 'user', content: 'Greet {{name}}.' }]);
    fireEvent.change(screen.getByLabelText('Message 1 role'), { target: { value: 'system' } });
    fireEvent.click(screen.getByText('Add message'));
    fireEvent.change(screen.getByLabelText('Message 2 content'), { target: { value: 'I am {{name}} from {{city}}.' } });
    expect(last).toEqual([
      { role: 'system', content: 'Greet {{name}}.' },
      { role: 'user', content: 'I am {{name}} from {{city}}.' },
    ]);
    expect(screen.getByText('Variables: name, city')).toBeTruthy();
    fireEvent.click(screen.getByLabelText('Remove message 1'));
    expect(last).toEqual([{ role: 'user', content: 'I am {{name}} from {{city}}.' }]);
    expect((screen.getByLabelText('Remove message 1') as HTMLButtonElement).disabled).toBe(true); // one message stays
    fireEvent.click(screen.getByText('Text'));
    expect(last).toBe('I am {{name}} from {{city}}.');
  });

  it('reads stored chat templates with other roles and rich content as editable messages', () => {
    expect(
      editable([
        { role: 'system', content: 'Be brief.' },
        { role: 'tool', content: [{ type: 'text', text: 'x' }] },
      ]),
    ).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '[\n  {\n    "type": "text",\n    "text": "x"\n  }\n]' },
    ]);
    expect(editable(42)).toBe('');
  });
});
