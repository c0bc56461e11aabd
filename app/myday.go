package app

import (
	"context"
	"time"

	"github.com/tofu-research/tofu/backend/myday"
)

// MyDayService is the My Day view (myday.Panel): a day's report, generated on demand or at
// the time set, and the past days' (docs/MYDAY.md).
type MyDayService struct{ *myday.Panel }

// MyDaySchedule is what the My Day panel shows of the setting myday_at.
type MyDaySchedule = myday.Timing

// reportOf writes the report of the day due falls on, for the scheduler.
func (s *MyDayService) reportOf(ctx context.Context, due time.Time) (string, error) {
	return myday.WriteDue(ctx, s.Panel, due)
}
