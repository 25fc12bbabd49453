export * from './schemas';
export * from './store';
export { sessionIdOf } from './jwt';
export { beginSession, restoreSession, endSession, logout, wireSessionSignals } from './actions';
export {
  clearSignOutNotice,
  noteSessionEnded,
  readSignOutNotice,
  setSignOutNotice,
  type SignOutNotice,
} from './notice';
