export { connectSocket, disconnectSocket, getSocket, onSocketChange, USER_STATUS_INTERVAL_MS, RECONNECT_DELAY_MS } from './socket';
export { useCompanyEvent, useCompanySocketEvent } from './useCompanyEvent';
export { importMessagesEvent } from './events';
