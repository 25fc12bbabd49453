/** What the editor shares with its node components: issues, drop-off stats and node actions. */
import { createContext, useContext } from 'react';
import type { FlowIssue } from '../../types';

export interface FlowEditorContextValue {
  issues: ReadonlyMap<string, FlowIssue[]>;
  stats: Readonly<Record<string, { entered: number; stopped: number }>> | null;
  onEdit: (id: string) => void;
  onDuplicate: (id: string) => void;
  onDelete: (id: string) => void;
}

export const FlowEditorContext = createContext<FlowEditorContextValue>({
  issues: new Map(),
  stats: null,
  onEdit: () => undefined,
  onDuplicate: () => undefined,
  onDelete: () => undefined,
});

export function useFlowEditor(): FlowEditorContextValue {
  return useContext(FlowEditorContext);
}
