import type { paths } from './schema';
import type { Schema } from './types';

/**
 * Runtime lists of the API's enums, for selects. Each is checked against the generated types
 * both ways: a value the API does not take, or a value it added, fails to compile.
 */
type Exactly<T, L extends readonly T[]> = [T] extends [L[number]] ? L : never;

type PlaygroundBody = paths['/api/v1/prompts/playground/run']['post']['requestBody']['content']['application/json'];
export type Provider = PlaygroundBody['variants'][number]['provider'];
const providers = [
  'openai',
  'anthropic',
  'gemini',
  'mistral',
  'groq',
  'deepseek',
  'xai',
  'together',
  'openrouter',
  'ollama',
] as const satisfies readonly Provider[];
export const PROVIDERS: Exactly<Provider, typeof providers> = providers;

export type WebhookEvent = Schema<'Webhook'>['events'][number];
const webhookEvents = [
  'request.created',
  'trace.completed',
  'alert.triggered',
] as const satisfies readonly WebhookEvent[];
export const WEBHOOK_EVENTS: Exactly<WebhookEvent, typeof webhookEvents> = webhookEvents;

export type Role = Schema<'Member'>['role'];
const roles = ['viewer', 'editor', 'admin'] as const satisfies readonly Role[];
export const ROLES: Exactly<Role, typeof roles> = roles;

export type ExportResource = Schema<'Export'>['resource'];
export type ExportFormat = Schema<'Export'>['format'];
const formats = ['csv', 'jsonl', 'parquet'] as const satisfies readonly ExportFormat[];
export const EXPORT_FORMATS: Exactly<ExportFormat, typeof formats> = formats;

type AlertBody = paths['/api/v1/alerts']['post']['requestBody']['content']['application/json'];
export type AlertType = AlertBody['type'];
const alertTypes = [
  'cost',
  'error_rate',
  'latency_p95',
  'latency_p99',
  'request_count',
  'token_count',
  'cost_per_user',
  'anomaly',
  'security_finding',
] as const satisfies readonly AlertType[];
export const ALERT_TYPES: Exactly<AlertType, typeof alertTypes> = alertTypes;
export type AlertOperator = AlertBody['operator'];
const operators = ['gt', 'gte', 'lt', 'lte'] as const satisfies readonly AlertOperator[];
export const ALERT_OPERATORS: Exactly<AlertOperator, typeof operators> = operators;
