/** A workflow's page in the Temporal Web UI (the `default` namespace), when the UI's address is known. */
export const workflowUrl = (temporalUi: string | null, workflowId: string) =>
  temporalUi ? `${temporalUi}/namespaces/default/workflows/${encodeURIComponent(workflowId)}` : null;
