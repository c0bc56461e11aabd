package search

import (
	"strings"
	"sync"
)

// Stopword lists: the Snowball project's English list, and the most frequent function words of
// the other languages a stemmer exists for. They serve twice: dropped from the index (they carry
// no topic) and counted to tell Latin-script languages apart.
var stopwordText = map[string]string{
	"en": `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
		she her hers herself it its itself they them their theirs themselves what which who whom this
		that these those am is are was were be been being have has had having do does did doing would
		should could ought i'm you're he's she's it's we're they're i've you've we've they've i'd you'd
		he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't hasn't
		haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't
		mustn't let's that's who's what's here's there's when's where's why's how's a an the and but if
		or because as until while of at by for with about against between into through during before
		after above below to from up down in out on off over under again further then once here there
		when where why how all any both each few more most other some such no nor not only own same so
		than too very`,
	"fr": `au aux avec ce ces dans de des du elle en et eux il je la le les leur lui ma mais me même mes
		moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu un
		une vos votre vous c d j l m n s t y été est sont être avoir ont cette aussi comme`,
	"de": `aber alle allem allen aller alles als also am an ander andere auch auf aus bei bin bis bist da
		damit dann das dass dein deine dem den der des dich die dies diese dieser dir doch dort du durch
		ein eine einem einen einer eines er es etwas euch für hat hatte ich ihm ihn ihr ihre im in ist
		jede jetzt kann kein mein mich mir mit muss nach nicht nichts noch nun nur ob oder ohne sehr sein
		sich sie sind so über um und uns unter vom von vor war was weil welche wenn wer wie wir wird
		wurde zu zum zur`,
	"es": `de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o
		este sí porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos
		durante todos uno les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro
		otras otra él tanto esa estos mucho quienes nada muchos cual poco ella estar estas es son fue`,
	"pt": `de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu
		sua ou quando muito nos já eu também só pelo pela até isso ela entre depois sem mesmo aos seus
		quem nas me esse eles você essa num nem suas meu às minha numa pelos elas qual nós lhe deles essas
		esses pelas este dele tu te vocês vos lhes meus minhas é são foi`,
	"it": `ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle
		di del dello dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul
		sullo sui sugli sull sugl sulla sulle per tra contro io tu lui lei noi voi loro mio mia miei mie
		tuo tua tuoi tue suo sua suoi sue nostro nostra il lo la gli le un uno una ma ed se perché anche
		come dov dove che chi cui non più quale quanto quanti è sono era`,
	"nl": `de en van ik te dat die in een hij het niet zijn is was op aan met als voor had er maar om hem
		dan zou of wat mijn men dit zo door over ze zich bij ook tot je mij uit der daar haar naar heb hoe
		heeft hebben deze u want nog zal me zij nu ge geen omdat iets worden toch al waren veel meer doen
		toen moet ben zonder kan hun dus alles onder ja eens hier wie werd altijd doch wordt wezen kunnen`,
	"sv": `och det att i en jag hon som han på den med var sig för så till är men ett om hade de av icke
		mig du henne då sin nu har inte hans honom skulle hennes där min man ej vid kunde något från ut
		när efter upp vi dem vara vad över än dig kan sina här ha mot alla under någon eller allt mycket
		sedan ju denna själv detta åt utan varit hur ingen mitt ni bli blev oss din dessa`,
	"da": `og i jeg det at en den til er som på de med han af for ikke der var mig sig men et har om vi
		min havde ham hun nu over da fra du ud sin dem os op man hans hvor eller hvad skal selv her alle
		vil blev kunne ind når være dog noget ville jo deres efter ned skulle denne end dette mit også`,
	"no": `og i jeg det at en et den til er som på de med han av ikke ikkje der så var meg seg men ett har
		om vi min mitt ha hadde hun nå over da ved fra du ut sin dem oss opp man kan hans hvor eller hva
		skal selv sjøl her alle vil bli ble blei blitt kunne inn når være kom noen noe ville dere`,
	"fi": `olla olen olet on olemme olette ovat ole oli ja että ei se sen mutta kun niin jos minä sinä hän
		me te he tämä tuo mikä joka mitä kuin myös vain sekä tai nyt jo vielä`,
	"hu": `a az egy be ki le fel meg el át rá ide oda szét össze vissza de hát és vagy hogy van lesz volt
		csak nem igen mint én te ő mi ti ők ez azt ezt nagyon már még is`,
	"ro": `a acea această aceasta acel acest al ale am ar are as au ca care ce cu de din după el ea ei
		este eu fi fost în la le lor mai mult ne nici nu o pe pentru prin sa să se și sunt un una unei
		unui`,
	"tr": `acaba ama aslında az bazı belki biri birkaç birşey biz bu çok çünkü da daha de defa diye eğer
		en gibi hem hep hepsi her hiç için ile ise kez ki kim mı mu mü nasıl ne neden nerde nerede
		nereye niçin niye o sanki şey siz şu tüm ve veya ya yani bir olan olarak`,
	"ga": `a ach ag agus an aon ar arna as b' ba beirt bhúr caoga ceathair ceathrar chomh chuig chun
		cois céad cúig cúigear d' daichead dar de deich deichniúr den dhá do don dtí dá dár dó faoi
		faoin faoina faoinár fara fiche gach gan go gur haon hocht i iad idir in ina ins inár is le leis
		lena lenár m' mar mo mé na nach naoi naonúr ná ní níor nó nócha ocht ochtar os roimh sa seacht
		seachtar seachtó seasca seisear siad sibh sinn sna sé sí tar thar thú triúr trí trína trínár
		tríocha tú um ár é éis í ó ón óna ónár`,
	"ru": `и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне
		было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до
		вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя
		их чем была сам чтоб без будто чего раз тоже себе под будет ж тогда кто этот того потому этого
		какой совсем ним здесь этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда
		можно при наконец два об другой хоть после над больше тот через эти нас про всего них какая
		много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им
		более всегда конечно всю между`,
	"ar": `من إلى عن على في مع هذا هذه ذلك تلك التي الذي الذين هو هي هم أن إن كان كانت قد لا ما لم لن
		ثم أو و بين كل بعد قبل حتى إذا عند منذ`,
}

// stopwordSets holds each language's list as a set.
type stopwordSets map[string]map[string]bool

// builtinStopwords are built on first use (not at package init, which every start of the
// program pays for) and read-only after; every Analyzer shares them.
var builtinStopwords = sync.OnceValue(newStopwordSets)

func newStopwordSets() stopwordSets {
	out := stopwordSets{}
	for lang, text := range stopwordText {
		set := map[string]bool{}
		for _, w := range strings.Fields(text) {
			set[w] = true
		}
		out[lang] = set
	}
	for w := range out["ar"] {
		out["ar"][normalizeArabic(w)] = true
	}
	return out
}

// IsStopword reports whether w (lower case) is on lang's stopword list.
func IsStopword(lang, w string) bool { return builtinStopwords()[lang][w] }
