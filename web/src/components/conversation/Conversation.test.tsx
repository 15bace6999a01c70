import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderUi } from '../../test/render';
import { Conversation } from './Conversation';
import * as f from './fixtures/bodies';

const turns = () => within(screen.getByRole('list', { name: 'Conversation' })).getAllByRole('listitem');

describe('<Conversation>', () => {
  it('renders an OpenAI chat as turns: roles, an image placeholder, the tool call and its result, the answer', () => {
    renderUi(<Conversation request={f.openaiRequest} response={f.openaiResponse} provider="openai" />);
    expect(screen.getByText('OpenAI chat')).toBeTruthy();
    const t = turns();
    expect(t.map((el) => el.getAttribute('data-role'))).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(within(t[1]!).getByText('Image (image/png, inline)')).toBeTruthy();
    expect(within(t[2]!).getByText('get_weather')).toBeTruthy();
    expect(within(t[2]!).getByText(/"city": "Paris"/)).toBeTruthy();
    expect(within(t[3]!).getByText(/Tool result/)).toBeTruthy();
    expect(within(t[4]!).getByText('It is 21 °C in Paris.')).toBeTruthy();
    expect(within(t[4]!).getByText('response')).toBeTruthy();
    // No base64 payload leaks into the page.
    expect(document.body.textContent).not.toContain('iVBORw0KGgo');
  });

  it('renders Anthropic blocks: thinking, tool_use, tool_result, and a streamed answer put together', () => {
    renderUi(<Conversation request={f.anthropicRequest} response={f.anthropicStream} provider="anthropic" />);
    expect(screen.getByText(/Anthropic messages · streamed, put together from 10 events/)).toBeTruthy();
    const t = turns();
    expect(within(t[2]!).getByText('I should call the vision tool.')).toBeTruthy();
    expect(within(t[2]!).getByText('describe')).toBeTruthy();
    expect(within(t[3]!).getByText('a cat on a mat')).toBeTruthy();
    expect(within(t[4]!).getByText('Hi you')).toBeTruthy();
    expect(within(t[4]!).getByText('search')).toBeTruthy();
  });

  it('renders Gemini contents with the model role and a function call', () => {
    renderUi(<Conversation request={f.geminiRequest} response={f.geminiResponse} provider="gemini" />);
    const t = turns();
    expect(t.map((el) => el.getAttribute('data-role'))).toEqual(['system', 'user', 'model', 'user', 'model']);
    expect(within(t[1]!).getByText('Inline data (image/webp)')).toBeTruthy();
    expect(within(t[2]!).getByText('convert')).toBeTruthy();
    expect(within(t[4]!).getByText('About 9.20 EUR.')).toBeTruthy();
  });

  it('switches to the raw JSON and back', () => {
    renderUi(<Conversation request={f.openaiRequest} response={f.openaiResponse} />);
    expect(screen.queryByLabelText('Request body')).toBeNull();
    fireEvent.click(screen.getByText('Raw JSON'));
    expect(screen.getByLabelText('Request body').textContent).toContain('"tool_call_id": "call_1"');
    expect(screen.getByLabelText('Response body').textContent).toContain('chatcmpl-1');
    expect(screen.queryByRole('list', { name: 'Conversation' })).toBeNull();
    fireEvent.click(screen.getByText('Conversation'));
    expect(turns()).toHaveLength(5);
  });

  it('falls back to the raw JSON for a shape it does not know', () => {
    const body = JSON.stringify({ model: 'text-embedding-3-small', input: 'embed me' });
    renderUi(<Conversation request={body} response='{"data":[{"embedding":[0.1]}]}' />);
    expect(screen.getByText(/Not a chat format the dashboard reads/)).toBeTruthy();
    expect(screen.getByLabelText('Request body').textContent).toContain('"input": "embed me"');
    expect(screen.queryByRole('list', { name: 'Conversation' })).toBeNull();
    expect(screen.queryByText('Raw JSON')).toBeNull();
  });

  it('says when nothing was logged', () => {
    renderUi(<Conversation request="" response="" empty="Not logged (log mode meta)" />);
    expect(screen.getAllByText('Not logged (log mode meta)')).toHaveLength(2);
    expect(screen.queryByText(/Not a chat format/)).toBeNull();
  });
});
