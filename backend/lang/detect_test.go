package lang

import "testing"

func TestDetect(t *testing.T) {
	t.Parallel()
	cases := []struct{ text, want string }{
		{"Please support header rows in RestructuredText output, it would be great.", "en"},
		{"请支持 RestructuredText 输出中的标题行，如果以下内容可以正常工作就太好了", "zh"},
		{"Le fichier de configuration est introuvable, pouvez-vous vérifier le chemin ?", "fr"},
		{"Die Konfigurationsdatei wurde nicht gefunden, bitte prüfen Sie den Pfad.", "de"},
		{"No se encuentra el archivo de configuración, por favor revise la ruta.", "es"},
		{"Файл конфигурации не найден, пожалуйста, проверьте путь.", "ru"},
		{"設定ファイルが見つかりません。パスを確認してください。", "ja"},
		{"설정 파일을 찾을 수 없습니다. 경로를 확인해 주세요.", "ko"},
		{"لم يتم العثور على ملف الإعدادات، يرجى التحقق من المسار.", "ar"},
		// Mostly code: the prose decides.
		{"运行时报错：\n```\nTraceback (most recent call last):\n  File \"/usr/lib/python3/x.py\", line 1, in <module>\nTypeError: bad argument for the function call here\n```\n请帮忙看看", "zh"},
		{"Let $f(x) = \\sqrt{x}$ and $g(x) = x^2.$ Find $f(g(f(g(f(8))))).$", "en"},
		{"```\nonly code\n```", ""},
	}
	for _, c := range cases {
		if got := Detect(c.text).Code; got != c.want {
			t.Errorf("Detect(%.40q) = %q, want %q", c.text, got, c.want)
		}
	}
}
