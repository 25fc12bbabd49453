/** Live schedule changes on `company-{id}-schedule` (create, update, delete): the lists refresh. */
import { useQueryClient } from '@tanstack/react-query';
import { useCompanyEvent } from '../../../lib/socket';
import { schedulesKeys } from '../../../lib/schedules/schedule';

export function useSchedulesRealtime(): void {
  const queryClient = useQueryClient();
  useCompanyEvent('schedule', () => void queryClient.invalidateQueries({ queryKey: schedulesKeys.all }));
}
