export * from './schemas';
export * from './store';
export { sessionIdOf } from './jwt';
export { beginSession, restoreSession, endSession, logout, wireSessionSignals } from './actions';
export { clearSignOutNotice, readSignOutNotice, setSignOutNotice, type SignOutNotice } from './notice';
