package universal

import "testing"

func TestISODuration(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"PT1H30M", "PT1H30M"}, {"PT90M", "PT1H30M"}, {"PT900S", "PT15M"}, {"PT3900S", "PT1H5M"}, {"P0DT1H25M", "PT1H25M"},
		{"P0DT0H45M0S", "PT45M"}, {"PT0D4H45M", "PT4H45M"}, {"PT0H45M0S", "PT45M"}, {"P1DT2H", "P1DT2H"}, {"PT1.5H", "PT1H30M"},
		{"PT0S", "PT0M"}, {"PT20S", "PT20S"}, {"35 minuti", "PT35M"}, {"1 hr 20 mins", "PT1H20M"}, {"1 Std. 30 Min.", "PT1H30M"},
		{"2 heures", "PT2H"}, {"45", "PT45M"}, {"PTNaNM", ""}, {"Prep Time (approx.)", ""}, {"", ""},
	} {
		if got := isoDuration(tc.in); got != tc.want {
			t.Errorf("isoDuration(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
