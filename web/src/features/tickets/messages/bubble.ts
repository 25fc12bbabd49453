/**
 * The colours of a message bubble in each theme (docs/inbox.md "Layout"): the contact's, the
 * attendant's and a private note, each with text and meta (time, ack, "edited") colours that
 * read on it (the time on a contact's bubble vanished in the dark theme, issue 15).
 */
export type BubbleKind = 'contact' | 'own' | 'private';

export interface BubbleColors {
  background: string;
  text: string;
  /** The time, "edited", "forwarded" and a deleted message's notice. */
  meta: string;
  /** The quoted message's box. */
  quote: string;
  /** A private note's border and its "private note" label. */
  accent: string;
}

const COLORS: Record<'light' | 'dark', Record<BubbleKind, BubbleColors>> = {
  light: {
    contact: { background: '#ffffff', text: '#303030', meta: '#5e6a71', quote: 'rgba(0, 0, 0, 0.05)', accent: '#5e6a71' },
    own: { background: '#dcf8c6', text: '#303030', meta: '#4f5e52', quote: 'rgba(0, 0, 0, 0.06)', accent: '#4f5e52' },
    private: { background: '#fff3c4', text: '#303030', meta: '#5f5634', quote: 'rgba(0, 0, 0, 0.06)', accent: '#8a6d00' },
  },
  dark: {
    contact: { background: '#202c33', text: '#e9edef', meta: '#a3b1b8', quote: 'rgba(0, 0, 0, 0.25)', accent: '#a3b1b8' },
    own: { background: '#005c4b', text: '#e9edef', meta: '#b5d3cb', quote: 'rgba(0, 0, 0, 0.2)', accent: '#b5d3cb' },
    private: { background: '#3d3512', text: '#f3ecd0', meta: '#d6c995', quote: 'rgba(0, 0, 0, 0.25)', accent: '#ffd54f' },
  },
};

export function bubbleColors(mode: 'light' | 'dark', kind: BubbleKind): BubbleColors {
  return COLORS[mode][kind];
}
