import { describe, expect, it } from 'vitest';
import * as f from './fixtures/bodies';
import { outputText, toConversation, type Message } from './parse';

const roles = (ms: Message[]) => ms.map((m) => m.role);
const types = (m: Message | undefined) => m?.parts.map((p) => p.type);

describe('toConversation', () => {
  it('reads OpenAI chat: system, text and an image, a tool call with parsed arguments, its result, the answer', () => {
    const c = toConversation(f.openaiRequest, f.openaiResponse, 'openai')!;
    expect(c.format).toBe('openai');
    expect(roles(c.input)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(c.input[1]!.parts).toEqual([
      { type: 'text', text: 'Weather in Paris? See the photo.' },
      { type: 'image', label: 'Image (image/png, inline)' },
    ]);
    expect(c.input[2]!.parts).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(c.input[3]!.parts[0]).toMatchObject({
      type: 'tool_result',
      id: 'call_1',
      content: [{ type: 'text', text: '{"temp_c":21}' }],
    });
    expect(outputText(c)).toBe('It is 21 °C in Paris.');
    expect(c.streamEvents).toBe(0);
  });

  it('reassembles an OpenAI stream, tool call arguments included', () => {
    const c = toConversation(f.openaiRequest, f.openaiStream)!;
    expect(c.streamEvents).toBe(5);
    expect(c.output).toHaveLength(1);
    expect(c.output[0]!.parts).toEqual([
      { type: 'text', text: 'Hello there' },
      { type: 'tool_call', id: 'call_9', name: 'lookup', input: { q: 'x' } },
    ]);
  });

  it('reads Anthropic messages: the system prompt, image, thinking, tool_use and tool_result blocks', () => {
    const c = toConversation(f.anthropicRequest, f.anthropicResponse, 'anthropic')!;
    expect(c.format).toBe('anthropic');
    expect(roles(c.input)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(c.input[0]!.parts).toEqual([{ type: 'text', text: 'Answer briefly.' }]);
    expect(c.input[1]!.parts[1]).toEqual({ type: 'image', label: 'Image (image/jpeg)' });
    expect(c.input[2]!.parts).toEqual([
      { type: 'thinking', text: 'I should call the vision tool.' },
      { type: 'tool_call', id: 'toolu_1', name: 'describe', input: { detail: 'high' } },
    ]);
    expect(c.input[3]!.parts).toEqual([
      { type: 'tool_result', id: 'toolu_1', content: [{ type: 'text', text: 'a cat on a mat' }], error: false },
    ]);
    expect(outputText(c)).toBe('A cat sitting on a mat.');
  });

  it('tells Anthropic from OpenAI by shape when the provider is not given', () => {
    expect(toConversation(f.anthropicRequest, null)?.format).toBe('anthropic');
    expect(toConversation(f.openaiRequest, null)?.format).toBe('openai');
  });

  it('reassembles an Anthropic stream: thinking, text deltas and a tool call from partial JSON', () => {
    const c = toConversation(f.anthropicRequest, f.anthropicStream, 'anthropic')!;
    expect(c.streamEvents).toBe(10);
    expect(c.output[0]!.parts).toEqual([
      { type: 'thinking', text: 'Let me think.' },
      { type: 'text', text: 'Hi you' },
      { type: 'tool_call', id: 'toolu_2', name: 'search', input: { q: 'cats' } },
    ]);
  });

  it('reads Gemini contents: systemInstruction, inline data, functionCall and functionResponse', () => {
    const c = toConversation(f.geminiRequest, f.geminiResponse, 'gemini')!;
    expect(c.format).toBe('gemini');
    expect(roles(c.input)).toEqual(['system', 'user', 'model', 'user']);
    expect(types(c.input[1])).toEqual(['text', 'image']);
    expect(c.input[1]!.parts[1]).toEqual({ type: 'image', label: 'Inline data (image/webp)' });
    expect(c.input[2]!.parts).toEqual([{ type: 'tool_call', name: 'convert', input: { amount: 10, to: 'EUR' } }]);
    expect(c.input[3]!.parts[0]).toMatchObject({ type: 'tool_result', name: 'convert' });
    expect(outputText(c)).toBe('About 9.20 EUR.');
  });

  it('reassembles a Gemini stream, keeping the thought apart from the answer', () => {
    const c = toConversation(f.geminiRequest, f.geminiStream)!;
    expect(c.output[0]!.parts).toEqual([
      { type: 'thinking', text: 'Thinking…' },
      { type: 'text', text: 'Nine euros.' },
    ]);
  });

  it(
    'reads the OpenAI Responses API: instructions, an image, ' +
      'a function call and its output, reasoning and the answer',
    () => {
      const c = toConversation(f.responsesRequest, f.responsesResponse, 'openai')!;
      expect(c.format).toBe('responses');
      expect(roles(c.input)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(c.input[1]!.parts).toEqual([
        { type: 'text', text: 'Describe this' },
        { type: 'image', label: 'Image (example.com)' },
      ]);
      expect(c.input[2]!.parts).toEqual([{ type: 'tool_call', id: 'fc_1', name: 'zoom', input: { level: 2 } }]);
      expect(c.input[3]!.parts[0]).toMatchObject({
        type: 'tool_result',
        id: 'fc_1',
        content: [{ type: 'text', text: 'zoomed' }],
      });
      expect(c.output.flatMap((m) => m.parts)).toEqual([
        { type: 'thinking', text: 'Look closer.' },
        { type: 'text', text: 'A cat.' },
      ]);
      const streamed = toConversation(f.responsesRequest, f.responsesStream)!;
      expect(streamed.streamEvents).toBe(4);
      expect(outputText(streamed)).toBe('A cat.');
    },
  );

  it('reads a Gemini stream sent as one JSON array, and a legacy completion', () => {
    const c = toConversation(f.geminiRequest, f.geminiArrayStream)!;
    expect(c.streamEvents).toBe(2);
    expect(outputText(c)).toBe('Nine euros.');
    const legacy = toConversation(
      JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' }),
      JSON.stringify({ choices: [{ text: 'hi' }] }),
    )!;
    expect(legacy.input).toEqual([{ role: 'prompt', parts: [{ type: 'text', text: 'Say hi' }] }]);
    expect(outputText(legacy)).toBe('hi');
  });

  it('keeps the input when the response is an error body, with no output', () => {
    const c = toConversation(f.openaiRequest, JSON.stringify({ error: { message: 'rate limited' } }))!;
    expect(c.input).toHaveLength(4);
    expect(c.output).toEqual([]);
    expect(outputText(c)).toBeNull();
  });

  it('gives null for shapes it does not know, text, a cut-off body and nothing', () => {
    expect(toConversation(JSON.stringify({ input: 'embed me', model: 'text-embedding-3-small' }), '{}')).toBeNull();
    expect(toConversation('plain text prompt', '')).toBeNull();
    expect(toConversation(f.openaiRequest.slice(0, 40), f.openaiResponse)).toBeNull();
    expect(toConversation(undefined, undefined)).toBeNull();
  });
});
