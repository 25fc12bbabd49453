import { afterEach, describe, expect, it } from 'vitest';
import { clearSignOutNotice, noteSessionEnded, readSignOutNotice, setSignOutNotice } from './notice';

describe('sign-out notice', () => {
  afterEach(() => clearSignOutNotice());

  it('says the session ended when nothing else was heard', () => {
    noteSessionEnded();
    expect(readSignOutNotice()).toBe('ended');
  });

  it('keeps "signed in elsewhere" when a request fails in the moment before the reload', () => {
    setSignOutNotice('elsewhere');
    noteSessionEnded();
    expect(readSignOutNotice()).toBe('elsewhere');
  });

  it('is read once: the login page clears it', () => {
    setSignOutNotice('ended');
    clearSignOutNotice();
    expect(readSignOutNotice()).toBeNull();
  });
});
