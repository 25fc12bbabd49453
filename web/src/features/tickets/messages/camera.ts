/** Camera capture helpers (spec 1 "Dialogs": camera capture, preferring the rear camera). */

/** Spec 1 "Ticket view": the camera capture prefers the rear camera. */
export const CAMERA_CONSTRAINTS: MediaStreamConstraints = { video: { facingMode: { ideal: 'environment' } }, audio: false };
const JPEG_QUALITY = 0.9;

/** The photo's file name at `now`. */
export function photoName(now: number = Date.now()): string {
  return `camera-${now}.jpg`;
}

/** The video's current frame as a JPEG blob. */
export function captureFrame(video: HTMLVideoElement): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth || 640;
  canvas.height = video.videoHeight || 480;
  const context = canvas.getContext('2d');
  if (!context) return Promise.reject(new Error('no 2d canvas'));
  context.drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('capture failed'))), 'image/jpeg', JPEG_QUALITY),
  );
}
