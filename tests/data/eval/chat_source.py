"""The hand-written content of the chat-log eval set: who says what in which session,
and the questions about it. `make_chat` renders it; nothing here is random."""

from __future__ import annotations

from typing import TypedDict

#: One line of a conversation: (index of the speaker, what they say).
Line = tuple[int, str]


class Conversation(TypedDict):
    """Two people's sessions, the facts told in them, and questions about those facts."""

    slug: str
    speakers: tuple[str, str]
    start: str  #: the first session's date
    mentions: list[Line]  #: chatter about the same people and hobbies, no facts
    sessions: list[list[str]]  #: the events told in each session, in order
    events: dict[str, list[Line]]
    questions: list[tuple[str, list[str]]]  #: (question, the events that answer it)


#: Small talk either speaker may use between the turns that carry facts ({me}: the
#: speaker, {you}: the other). It makes the common words of a chat common, as they are.
FILLER = [
    "That sounds great, {you}! How did it make you feel?",
    "Wow, I did not expect that. What happened next?",
    "I'm really happy for you. You deserve it.",
    "Haha, that is so you. I love it.",
    "Honestly, I would have done the same thing.",
    "How is the family doing, by the way?",
    "Work has been busy here too, but I'm hanging in there.",
    "Oh no, that must have been stressful. Are you okay now?",
    "That's such a good idea. Let me know how it goes!",
    "I know what you mean. Some weeks just fly by.",
    "Did you take any pictures? I'd love to see them.",
    "You always find time for the things you care about.",
    "It's been a long week, but talking to you helps.",
    "What do you think you'll do next?",
    "I keep thinking about what you said last time.",
    "That's amazing. I'm proud of you, {you}.",
    "Thanks, {you}. It really means a lot to me.",
    "I'm trying to take it one day at a time.",
    "Sounds like a fun weekend! Wish I could have been there.",
    "Yeah, the weather has been all over the place lately.",
    "I had no idea! Tell me more about it.",
    "That must have taken a lot of courage.",
    "We should catch up in person sometime soon.",
    "It's nice to have something to look forward to.",
]
OPEN = [
    "Hey {you}! How have you been?",
    "Hi {you}, long time no chat. What's new?",
    "Hey! Good to hear from you, {you}.",
    "Hi {you}! I was just thinking about you.",
]
REPLY = [
    "Hi {you}! Pretty good, thanks. A lot has happened actually.",
    "Hey {you}! Busy as always, but good. You?",
    "Hi! So good to hear from you.",
    "Hey {you}, I'm doing well. I have news!",
]
CLOSE = [
    "Anyway, I should get going. Talk soon, {you}!",
    "I have to run, but this was lovely. Take care!",
    "Okay, time for bed here. Talk to you soon!",
    "Let's talk again next week. Bye {you}!",
]

# Each conversation: two speakers, the sessions (each a list of events in order), and
# questions. An event is a list of (speaker index, line). A question names the events
# that answer it; their sessions are the expected files.
CONVERSATIONS: list[Conversation] = [
    {
        "slug": "maya-theo-3f1a9c20",
        "mentions": [
            (
                0,
                "Biscuit and I walked along the river this morning. She stole a sandwich from a jogger.",
            ),
            (0, "My legs are sore from running, but it's a good sore."),
            (0, "Portuguese is going slowly. I keep mixing up the verbs for being."),
            (0, "The ward was chaos again last night. Three admissions in an hour."),
            (1, "The workshop smells like oak all the time now. I love it."),
            (1, "I spent the whole weekend sanding. My arms are dead."),
            (
                1,
                "Ines keeps sending me pictures of wedding dresses. I have no opinions.",
            ),
            (1, "The canoe is taking longer than I thought, but it's getting there."),
            (
                1,
                "The repair cafe was packed on Saturday. Mostly toasters and one accordion.",
            ),
            (0, "Biscuit has a new favourite toy, a squeaky carrot."),
            (0, "I baked sourdough twice this week. The second one was actually good."),
            (
                1,
                "My mum asked about you, by the way. She still talks about your bread.",
            ),
            (0, "I ran in the rain yesterday and it was weirdly fun."),
            (1, "Jonah fixed his first chair on his own. I was so proud."),
            (0, "Shifts are long but the kids on the ward are so brave."),
            (1, "I found a box of my grandfather's old chisels in the attic."),
        ],
        "speakers": ("Maya", "Theo"),
        "start": "2023-01-09",
        "sessions": [
            ["m_nurse", "t_workshop_idea", "m_run_start"],
            ["m_dog", "t_sister_engaged", "t_oak"],
            ["m_run_10k", "t_lease", "m_portuguese"],
            ["t_canoe_start", "m_night_shift", "m_dog_training"],
            ["m_apartment_search", "t_repair_cafe", "t_sister_venue"],
            ["m_run_injury", "t_first_client", "m_portuguese_tutor"],
            ["t_canoe_water", "m_move", "t_workshop_sign"],
            ["m_run_back", "t_wedding", "m_dog_vet"],
            ["t_apprentice", "m_lisbon_plan", "m_run_race"],
            ["m_lisbon_back", "t_canoe_trip", "t_repair_cafe_award"],
        ],
        "events": {
            "m_nurse": [
                (
                    0,
                    "Work is intense. The pediatric ward is short two nurses, so I'm covering extra shifts until March.",
                ),
                (
                    1,
                    "Pediatrics must be exhausting. How do you switch off after a shift?",
                ),
                (
                    0,
                    "I bake bread. Kneading dough is the only thing that empties my head.",
                ),
            ],
            "t_workshop_idea": [
                (
                    1,
                    "I've been thinking of quitting the furniture factory and opening my own woodworking shop.",
                ),
                (
                    1,
                    "I'm tired of building the same flat-pack cabinets every day. I want to make tables people keep for fifty years.",
                ),
            ],
            "m_run_start": [
                (
                    0,
                    "Also, I signed up for a beginners' running group. We meet Tuesdays by the river.",
                ),
                (
                    0,
                    "My goal is the city half marathon in the autumn. Right now I can barely run three kilometers.",
                ),
            ],
            "m_dog": [
                (
                    0,
                    "Big news: I adopted a dog from the shelter! A three-year-old greyhound called Biscuit.",
                ),
                (
                    0,
                    "She was a racing dog, so she's scared of stairs, but she sleeps twenty hours a day.",
                ),
            ],
            "t_sister_engaged": [
                (
                    1,
                    "My sister Ines got engaged last weekend. Her fiance proposed on a ferry to the islands.",
                ),
                (
                    1,
                    "She asked me to build the wedding arch, which is terrifying and lovely at the same time.",
                ),
            ],
            "t_oak": [
                (
                    1,
                    "A farmer up the valley is selling a fallen oak. I bought the whole trunk for the future shop.",
                )
            ],
            "m_run_10k": [
                (
                    0,
                    "I ran my first 10k without stopping! Fifty-eight minutes, slow but I didn't walk once.",
                )
            ],
            "t_lease": [
                (
                    1,
                    "I signed a lease on an old bakery on Mill Street for the workshop. The ovens are still inside.",
                ),
                (
                    1,
                    "Rent is cheap because the roof leaks. I'll fix the roof myself in exchange for three months free.",
                ),
            ],
            "m_portuguese": [
                (
                    0,
                    "I started learning Portuguese on my phone. My grandmother was from Porto and I want to talk to my cousins there.",
                )
            ],
            "t_canoe_start": [
                (
                    1,
                    "I started building a cedar strip canoe in the evenings, from plans my grandfather left me.",
                ),
                (
                    1,
                    "It's about five meters long. I'm bending the strips over forms in the back of the old bakery.",
                ),
            ],
            "m_night_shift": [
                (
                    0,
                    "I switched to night shifts for the extra pay. I want to save for a flat with a garden for Biscuit.",
                )
            ],
            "m_dog_training": [
                (
                    0,
                    "Biscuit finally climbed the stairs to my apartment on her own. I used cheese and a lot of patience.",
                )
            ],
            "m_apartment_search": [
                (
                    0,
                    "Flat hunting is brutal. I saw nine places and only one had a garden, and it was mostly gravel.",
                )
            ],
            "t_repair_cafe": [
                (
                    1,
                    "I volunteer at the repair cafe at the library now, first Saturday of the month. People bring broken chairs and lamps.",
                ),
                (
                    1,
                    "Last time a girl brought her late grandpa's rocking chair and cried when it stopped wobbling.",
                ),
            ],
            "t_sister_venue": [
                (
                    1,
                    "Ines booked the wedding venue: a lighthouse garden on the coast, in late July.",
                )
            ],
            "m_run_injury": [
                (
                    0,
                    "I have shin splints. The physio told me no running for four weeks, only swimming and cycling.",
                ),
                (0, "I'm so frustrated. I was finally getting faster."),
            ],
            "t_first_client": [
                (
                    1,
                    "My first real client! A couple ordered a dining table from the oak, two and a half meters long.",
                ),
                (
                    1,
                    "They want it finished with natural oil, no varnish, so the kids can draw on it and we can sand it out.",
                ),
            ],
            "m_portuguese_tutor": [
                (
                    0,
                    "I found a Portuguese tutor online, Beatriz. We talk twice a week and she laughs at my accent.",
                )
            ],
            "t_canoe_water": [
                (
                    1,
                    "The canoe floats! We put it in the lake on Sunday and it only leaked a little at the stern.",
                )
            ],
            "m_move": [
                (
                    0,
                    "I moved! A ground-floor flat with a small garden, ten minutes from the hospital.",
                ),
                (
                    0,
                    "Biscuit runs circles on the grass every morning. I planted tomatoes and basil.",
                ),
            ],
            "t_workshop_sign": [
                (
                    1,
                    "I hung a sign on the workshop: Halden & Oak. Halden was my grandfather's name.",
                )
            ],
            "m_run_back": [
                (
                    0,
                    "The shin splints are healed. I'm running again, three times a week, with new shoes and shorter strides.",
                )
            ],
            "t_wedding": [
                (
                    1,
                    "Ines's wedding was perfect. The arch held up in the wind and everyone asked who built it.",
                ),
                (
                    1,
                    "I gave a speech and only cried a little. My mum danced until midnight.",
                ),
            ],
            "m_dog_vet": [
                (
                    0,
                    "Biscuit had a tooth removed at the vet. She was sulking all day but ate her dinner.",
                )
            ],
            "t_apprentice": [
                (
                    1,
                    "I took on an apprentice, Jonah, he's nineteen and came to the repair cafe every month.",
                )
            ],
            "m_lisbon_plan": [
                (
                    0,
                    "I booked a trip to Portugal in October: Lisbon first, then the train up to Porto to meet my cousins.",
                ),
                (
                    0,
                    "Beatriz says I'm ready to order food and ask directions without switching to English.",
                ),
            ],
            "m_run_race": [
                (
                    0,
                    "I ran the half marathon! Two hours and six minutes. My legs hated me the next day.",
                ),
                (0, "Biscuit was waiting at the finish with my neighbour."),
            ],
            "m_lisbon_back": [
                (
                    0,
                    "Portugal was wonderful. My cousins in Porto cooked for me every night and I understood most of it.",
                ),
                (
                    0,
                    "My great-aunt gave me my grandmother's old recipe book, all handwritten.",
                ),
            ],
            "t_canoe_trip": [
                (
                    1,
                    "Jonah and I paddled the canoe down the river for three days and camped on sandbanks.",
                )
            ],
            "t_repair_cafe_award": [
                (
                    1,
                    "The repair cafe won a small city award for reducing waste. They printed my photo in the paper holding a chair.",
                )
            ],
        },
        "questions": [
            ("What does Maya do for work?", ["m_nurse"]),
            ("How does Maya unwind after her shifts?", ["m_nurse"]),
            ("Why did Theo want to leave the furniture factory?", ["t_workshop_idea"]),
            (
                "What race was Maya training for when she joined the running group?",
                ["m_run_start"],
            ),
            ("What kind of dog did Maya adopt?", ["m_dog"]),
            ("What is Maya's dog called?", ["m_dog"]),
            ("How did Ines's fiance propose?", ["t_sister_engaged"]),
            ("What did Ines ask Theo to make for her wedding?", ["t_sister_engaged"]),
            ("Where did Theo get the wood for his shop?", ["t_oak"]),
            ("How long did it take Maya to run her first 10k?", ["m_run_10k"]),
            ("Where is Theo's workshop located?", ["t_lease"]),
            ("What deal did Theo make with his landlord?", ["t_lease"]),
            ("Why is Maya learning Portuguese?", ["m_portuguese"]),
            ("What is Theo building in the evenings?", ["t_canoe_start"]),
            ("Whose plans did Theo use for the canoe?", ["t_canoe_start"]),
            ("Why did Maya switch to night shifts?", ["m_night_shift"]),
            ("How did Maya get Biscuit to climb the stairs?", ["m_dog_training"]),
            ("Where does Theo volunteer?", ["t_repair_cafe"]),
            ("What did the girl bring to the repair cafe?", ["t_repair_cafe"]),
            ("Where is Ines getting married?", ["t_sister_venue"]),
            ("What did the physio tell Maya to do?", ["m_run_injury"]),
            ("What did Theo's first client order?", ["t_first_client"]),
            ("Why did the couple not want varnish on their table?", ["t_first_client"]),
            ("Who is Maya's Portuguese tutor?", ["m_portuguese_tutor"]),
            ("What happened when Theo put the canoe in the lake?", ["t_canoe_water"]),
            ("What did Maya plant in her new garden?", ["m_move"]),
            (
                "What is the name of Theo's workshop, and who is it named after?",
                ["t_workshop_sign"],
            ),
            ("What did Maya change when she started running again?", ["m_run_back"]),
            ("How did the arch Theo built do at the wedding?", ["t_wedding"]),
            ("Why was Biscuit sulking?", ["m_dog_vet"]),
            ("Who did Theo take on as an apprentice?", ["t_apprentice"]),
            ("What was Maya's time in the half marathon?", ["m_run_race"]),
            ("What did Maya's great-aunt give her in Portugal?", ["m_lisbon_back"]),
            ("What did Theo and Jonah do with the canoe?", ["t_canoe_trip"]),
            ("Why did the repair cafe win an award?", ["t_repair_cafe_award"]),
            ("What are Maya's hobbies?", ["m_nurse", "m_run_start", "m_portuguese"]),
            (
                "Would Maya likely enjoy a trail run with her dog?",
                ["m_run_start", "m_dog", "m_run_back"],
            ),
            ("When did Maya adopt Biscuit?", ["m_dog"]),
            ("When did Theo sign the lease on the old bakery?", ["t_lease"]),
        ],
    },
    {
        "slug": "lena-omar-8b2e47d1",
        "mentions": [
            (
                0,
                "The lab is freezing today. I'm counting polyps in a jumper and gloves.",
            ),
            (0, "Thesis writing is slow. I wrote two paragraphs and deleted three."),
            (1, "The truck was busy at lunch, then dead all afternoon."),
            (1, "I tried a new za'atar blend. Customers noticed right away."),
            (1, "Yasmin is drawing dragons on everything, including my receipts."),
            (0, "I played bass for an hour last night just to relax."),
            (0, "My supervisor sent me twenty comments on one chapter."),
            (1, "The van needs new tyres soon. Everything costs money."),
            (0, "I went diving at the pier on the weekend, just for fun."),
            (
                1,
                "My mum sent me her lentil soup recipe again, with new notes in the margin.",
            ),
            (0, "Coffee is my whole personality right now."),
            (1, "Rain all week, so fewer customers at the market."),
            (0, "The reef photos from the field season are finally sorted."),
            (1, "Yasmin asked if dragons can work in restaurants."),
            (0, "My wrist still clicks when I type, but it's better."),
            (1, "I'm testing a pistachio dessert. Not ready yet."),
        ],
        "speakers": ("Lena", "Omar"),
        "start": "2023-02-20",
        "sessions": [
            ["l_phd", "o_truck", "l_bass"],
            ["o_dad_recipes", "l_fieldtrip_plan", "o_daughter_play"],
            ["l_fieldtrip", "o_festival_plan", "l_band_gig"],
            ["o_festival", "l_advisor_conflict", "o_van_broken"],
            ["l_coral_result", "o_new_van", "l_climbing"],
            ["o_permit", "l_band_breakup", "o_daughter_school"],
            ["l_paper", "o_catering", "l_climbing_fall"],
            ["o_dad_visit", "l_defense_date", "o_menu_change"],
            ["l_defense", "o_restaurant_idea", "l_job_offer"],
            ["o_restaurant_lease", "l_move_plan", "o_daughter_award"],
        ],
        "events": {
            "l_phd": [
                (
                    0,
                    "I'm in the second year of my PhD in marine biology. I study how heat waves bleach the coral off the southern reef.",
                ),
                (1, "That sounds important. Do you dive a lot?"),
                (
                    0,
                    "Every field season. The rest of the year I'm stuck counting polyps on a microscope.",
                ),
            ],
            "o_truck": [
                (
                    1,
                    "I finally bought the food truck! It's an old ice-cream van, I'm turning it into a Lebanese kitchen.",
                ),
                (
                    1,
                    "Falafel wraps, manakish with za'atar, and my mum's lentil soup in winter.",
                ),
            ],
            "l_bass": [
                (
                    0,
                    "I play bass in a small funk band called The Low Tides. We rehearse in a garage on Thursdays.",
                )
            ],
            "o_dad_recipes": [
                (
                    1,
                    "My dad wrote down all his recipes in a notebook before he retired from his restaurant in Tripoli.",
                ),
                (
                    1,
                    "His garlic sauce is the secret. I've made it forty times and it's still not quite his.",
                ),
            ],
            "l_fieldtrip_plan": [
                (
                    0,
                    "We leave for the reef station in April for six weeks. No internet except one satellite phone.",
                )
            ],
            "o_daughter_play": [
                (
                    1,
                    "My daughter Yasmin got the lead in her school play, she's playing a dragon who is afraid of fire.",
                )
            ],
            "l_fieldtrip": [
                (
                    0,
                    "I'm back from the reef. We saw bleaching on almost a third of the colonies we tagged.",
                ),
                (
                    0,
                    "A reef shark followed me on every dive at the north transect. My supervisor called it my boyfriend.",
                ),
            ],
            "o_festival_plan": [
                (
                    1,
                    "I applied for a spot at the summer street food festival by the harbour. Three days, ten thousand people.",
                )
            ],
            "l_band_gig": [
                (
                    0,
                    "The Low Tides played our first real gig at a bar downtown! Forty people came, mostly friends.",
                ),
                (0, "I messed up the bass line in the second song but nobody noticed."),
            ],
            "o_festival": [
                (
                    1,
                    "The festival was crazy. We sold out of falafel by two o'clock every day.",
                ),
                (
                    1,
                    "On the last day the generator died and I cooked on a camping stove for three hours.",
                ),
            ],
            "l_advisor_conflict": [
                (
                    0,
                    "My advisor wants me to add a whole new chapter on algae, and I think it will delay me by a year.",
                ),
                (
                    0,
                    "I'm going to ask the committee for a second opinion before I agree.",
                ),
            ],
            "o_van_broken": [
                (
                    1,
                    "The van's engine broke down on the motorway. The mechanic says it's the head gasket.",
                )
            ],
            "l_coral_result": [
                (
                    0,
                    "Good news from the lab: the corals we moved to deeper water recovered much better than the shallow ones.",
                ),
                (
                    0,
                    "My committee agreed the algae chapter can be a short appendix instead.",
                ),
            ],
            "o_new_van": [
                (
                    1,
                    "I bought a new van, a proper catering truck with two fryers. I sold the old ice-cream van to a circus.",
                ),
                (1, "Yasmin painted a dragon on the side door."),
            ],
            "l_climbing": [
                (
                    0,
                    "I started bouldering at the climbing gym near the university. It's the only thing that stops my thesis brain.",
                )
            ],
            "o_permit": [
                (
                    1,
                    "The city gave me a permanent permit for the market square on Fridays and Saturdays.",
                )
            ],
            "l_band_breakup": [
                (
                    0,
                    "The Low Tides broke up. Our drummer moved to Berlin and the guitarist is having a baby.",
                ),
                (0, "I sold my bass amp, but I'm keeping the bass."),
            ],
            "o_daughter_school": [
                (
                    1,
                    "Yasmin started at a new school with an art program. She cried the first day and loved it by Friday.",
                )
            ],
            "l_paper": [
                (
                    0,
                    "My first paper was accepted! It's about depth as a refuge for corals during heat waves.",
                )
            ],
            "o_catering": [
                (
                    1,
                    "I catered my first wedding, two hundred guests. My cousin Rami helped me with the grill.",
                )
            ],
            "l_climbing_fall": [
                (
                    0,
                    "I fell at the climbing gym and sprained my wrist. Typing my thesis with one hand is slow.",
                )
            ],
            "o_dad_visit": [
                (
                    1,
                    "My dad came to visit from Tripoli and worked the truck with me for a week.",
                ),
                (
                    1,
                    "He tasted my garlic sauce and said it's better than his. I think he was being kind.",
                ),
            ],
            "l_defense_date": [
                (
                    0,
                    "My thesis defense is set for November 14th. I'm terrified of the external examiner.",
                )
            ],
            "o_menu_change": [
                (
                    1,
                    "I added a vegan shawarma made with oyster mushrooms. It's already outselling the chicken.",
                )
            ],
            "l_defense": [
                (
                    0,
                    "I passed my defense! The external examiner asked about statistics for an hour but I survived.",
                ),
                (0, "My mum flew in and cried in the back row."),
            ],
            "o_restaurant_idea": [
                (
                    1,
                    "I'm thinking about opening a small restaurant, so I can cook in winter without freezing in the van.",
                )
            ],
            "l_job_offer": [
                (
                    0,
                    "I got a postdoc offer in Townsville to work on reef restoration. I start in March.",
                )
            ],
            "o_restaurant_lease": [
                (
                    1,
                    "I signed the lease for a little restaurant by the train station. I'll call it Beit Baba, my father's house.",
                )
            ],
            "l_move_plan": [
                (
                    0,
                    "I'm shipping my things to Australia in February. I'm only taking the bass and my dive gear.",
                )
            ],
            "o_daughter_award": [
                (
                    1,
                    "Yasmin won a regional drawing prize with a picture of the van and the dragon.",
                )
            ],
        },
        "questions": [
            ("What is Lena studying for her PhD?", ["l_phd"]),
            ("What kind of food does Omar's truck serve?", ["o_truck"]),
            ("What vehicle did Omar first turn into a food truck?", ["o_truck"]),
            ("What instrument does Lena play, and in which band?", ["l_bass"]),
            ("Who wrote the recipes Omar cooks from?", ["o_dad_recipes"]),
            ("Which dish is Omar struggling to get right?", ["o_dad_recipes"]),
            (
                "How long was Lena's field trip to the reef station supposed to last?",
                ["l_fieldtrip_plan"],
            ),
            ("What role did Yasmin get in the school play?", ["o_daughter_play"]),
            ("What did Lena see on the reef during fieldwork?", ["l_fieldtrip"]),
            ("What followed Lena on her dives?", ["l_fieldtrip"]),
            ("How many people came to The Low Tides' first gig?", ["l_band_gig"]),
            ("What went wrong on the last day of the festival?", ["o_festival"]),
            ("Why did Lena disagree with her advisor?", ["l_advisor_conflict"]),
            ("What was wrong with Omar's van?", ["o_van_broken"]),
            (
                "What did Lena find about corals moved to deeper water?",
                ["l_coral_result"],
            ),
            (
                "What happened to the algae chapter?",
                ["l_coral_result", "l_advisor_conflict"],
            ),
            ("What did Omar do with the old ice-cream van?", ["o_new_van"]),
            ("Who painted the dragon on Omar's van?", ["o_new_van"]),
            ("Why did Lena take up bouldering?", ["l_climbing"]),
            ("Where is Omar allowed to park the truck on weekends?", ["o_permit"]),
            ("Why did The Low Tides break up?", ["l_band_breakup"]),
            ("What did Lena do with her bass amp?", ["l_band_breakup"]),
            ("How did Yasmin feel about her new school?", ["o_daughter_school"]),
            ("What was Lena's first paper about?", ["l_paper"]),
            ("Who helped Omar cater the wedding?", ["o_catering"]),
            ("How did Lena hurt her wrist?", ["l_climbing_fall"]),
            ("What did Omar's father say about his garlic sauce?", ["o_dad_visit"]),
            ("When is Lena's thesis defense?", ["l_defense_date"]),
            ("What is the vegan dish Omar added to the menu?", ["o_menu_change"]),
            ("What did the external examiner ask Lena about?", ["l_defense"]),
            ("Why does Omar want to open a restaurant?", ["o_restaurant_idea"]),
            ("Where is Lena's postdoc?", ["l_job_offer"]),
            ("What will Omar's restaurant be called?", ["o_restaurant_lease"]),
            ("What is Lena taking with her to Australia?", ["l_move_plan"]),
            ("What prize did Yasmin win?", ["o_daughter_award"]),
            (
                "Would Omar likely cook at a harbour festival again?",
                ["o_festival_plan", "o_festival"],
            ),
            ("What has Omar said about his father?", ["o_dad_recipes", "o_dad_visit"]),
            ("When did Omar buy the food truck?", ["o_truck"]),
            ("When did the van break down?", ["o_van_broken"]),
        ],
    },
    {
        "slug": "rosa-kenji-c41d0e6b",
        "mentions": [
            (0, "The garden is finally waking up. The tomatoes need stakes already."),
            (0, "I painted a robin this morning. The colours ran, but I like it."),
            (1, "Long shift yesterday. Two car accidents and a kitchen fire."),
            (1, "Ember knocked my coffee off the table again."),
            (0, "Mateo called to tell me about a fire truck he saw."),
            (1, "I practised knife skills on a mountain of onions. I cried a lot."),
            (0, "The book club argued about the ending for an hour."),
            (1, "The station got a new ladder truck. Everyone is excited like kids."),
            (0, "My knee complains when it rains, which is always."),
            (1, "I made miso soup again. Better than last time."),
            (0, "The birds emptied my feeder in one afternoon."),
            (1, "Flash cards everywhere in my apartment. Ember sleeps on them."),
            (
                0,
                "I had tea with my old colleagues from school. They miss me, apparently.",
            ),
            (1, "Training day at the quarry again, ropes and harnesses all morning."),
            (0, "My sister wants to plan another trip already."),
            (1, "The crew asked me to cook again. I'm nervous."),
        ],
        "speakers": ("Rosa", "Kenji"),
        "start": "2023-03-06",
        "sessions": [
            ["r_retired", "k_firefighter", "r_garden"],
            ["k_exam_plan", "r_grandson", "k_cooking"],
            ["r_watercolor", "k_cat", "r_garden_pests"],
            ["k_climbing_rescue", "r_book_club", "k_exam_study"],
            ["r_grandson_visit", "k_cooking_class", "r_exhibit_plan"],
            ["k_injury", "r_garden_show", "k_cat_sick"],
            ["r_exhibit", "k_exam_result", "r_knee"],
            ["k_new_station", "r_trip_plan", "k_cooking_dinner"],
            ["r_trip", "k_cat_recovered", "r_book_club_book"],
            ["k_captain_first", "r_grandson_school", "r_watercolor_class"],
        ],
        "events": {
            "r_retired": [
                (
                    0,
                    "I retired from teaching in December after thirty-one years of primary school.",
                ),
                (
                    0,
                    "The children made me a quilt with their handprints. I hung it in the hallway.",
                ),
            ],
            "k_firefighter": [
                (
                    1,
                    "I've been a firefighter for eight years now, at station 12 on the east side.",
                ),
                (
                    1,
                    "Mostly car accidents and kitchen fires, and a surprising number of cats in trees.",
                ),
            ],
            "r_garden": [
                (
                    0,
                    "Now I have time for the garden. I'm growing heirloom tomatoes from seeds my father saved.",
                )
            ],
            "k_exam_plan": [
                (
                    1,
                    "I've decided to take the lieutenant exam in the autumn. It means a lot of studying about incident command.",
                )
            ],
            "r_grandson": [
                (
                    0,
                    "My grandson Mateo turned six. He wants to be a firefighter like you, by the way!",
                )
            ],
            "k_cooking": [
                (
                    1,
                    "I'm trying to learn to cook properly. Last night I burned rice, which is embarrassing for someone from Osaka.",
                )
            ],
            "r_watercolor": [
                (
                    0,
                    "I started painting watercolors, mostly the birds that come to my feeder. Goldfinches are the hardest.",
                )
            ],
            "k_cat": [
                (
                    1,
                    "I adopted a cat from a fire call. She was hiding under a burning porch, so I named her Ember.",
                )
            ],
            "r_garden_pests": [
                (
                    0,
                    "Slugs ate half my lettuce. My neighbour swears by crushed eggshells, so I'm trying that.",
                )
            ],
            "k_climbing_rescue": [
                (
                    1,
                    "We did a rope rescue on the quarry cliffs. A climber was stuck on a ledge for six hours.",
                ),
                (
                    1,
                    "I was the one lowered down to him. My hands were shaking afterwards.",
                ),
            ],
            "r_book_club": [
                (
                    0,
                    "I joined a book club at the library. We meet on the last Thursday and mostly drink tea.",
                )
            ],
            "k_exam_study": [
                (
                    1,
                    "I study for the lieutenant exam every morning before shift, with flash cards on the train.",
                )
            ],
            "r_grandson_visit": [
                (
                    0,
                    "Mateo stayed with me for a week. We planted sunflowers and he named every one of them.",
                )
            ],
            "k_cooking_class": [
                (
                    1,
                    "I signed up for a Saturday cooking class. This week: knife skills and a proper miso soup.",
                )
            ],
            "r_exhibit_plan": [
                (
                    0,
                    "The community center asked me to show my bird paintings in their autumn exhibition!",
                )
            ],
            "k_injury": [
                (
                    1,
                    "I hurt my shoulder carrying a hose up four flights of stairs. Two weeks on light duty.",
                )
            ],
            "r_garden_show": [
                (
                    0,
                    "My tomatoes won second prize at the county garden show. The judge said the Brandywines were perfect.",
                )
            ],
            "k_cat_sick": [
                (
                    1,
                    "Ember is sick. She stopped eating and the vet thinks it's her kidneys.",
                )
            ],
            "r_exhibit": [
                (
                    0,
                    "The exhibition opened and I sold three paintings, the goldfinch went first.",
                ),
                (0, "I gave the money to the school library where I taught."),
            ],
            "k_exam_result": [
                (1, "I passed the lieutenant exam! Third out of forty candidates.")
            ],
            "r_knee": [
                (
                    0,
                    "My knee has been bad, so gardening is slower. The doctor says it's arthritis and suggested swimming.",
                )
            ],
            "k_new_station": [
                (
                    1,
                    "I'm moving to station 4 downtown as a lieutenant next month. Busier, more high-rises.",
                )
            ],
            "r_trip_plan": [
                (
                    0,
                    "My sister and I are going to Kyoto in April for the cherry blossoms. Any tips?",
                ),
                (
                    1,
                    "Go to the Philosopher's Path early in the morning, before the tour buses.",
                ),
            ],
            "k_cooking_dinner": [
                (
                    1,
                    "I cooked dinner for my whole crew: curry, rice that did not burn, and a cucumber salad.",
                )
            ],
            "r_trip": [
                (
                    0,
                    "Kyoto was magical. We followed your advice and walked the Philosopher's Path at six in the morning.",
                ),
                (0, "I painted the cherry blossoms by the canal every afternoon."),
            ],
            "k_cat_recovered": [
                (
                    1,
                    "Ember is much better on the special diet. She's back to stealing my socks.",
                )
            ],
            "r_book_club_book": [
                (
                    0,
                    "The book club is reading a novel about a lighthouse keeper. I'm hosting next month, so I'm baking a lemon cake.",
                )
            ],
            "k_captain_first": [
                (
                    1,
                    "My first big fire as lieutenant: a warehouse on the docks. Everyone got out, and I slept fourteen hours after.",
                )
            ],
            "r_grandson_school": [
                (
                    0,
                    "Mateo started school. His teacher says he talks about fire trucks all day.",
                )
            ],
            "r_watercolor_class": [
                (
                    0,
                    "I'm teaching a free watercolor class for seniors at the community center on Wednesdays.",
                )
            ],
        },
        "questions": [
            ("What did Rosa's students give her when she retired?", ["r_retired"]),
            ("How long did Rosa teach?", ["r_retired"]),
            ("How long has Kenji been a firefighter?", ["k_firefighter"]),
            ("Where do Rosa's tomato seeds come from?", ["r_garden"]),
            ("Which exam is Kenji preparing for?", ["k_exam_plan"]),
            ("What does Mateo want to be when he grows up?", ["r_grandson"]),
            ("What did Kenji burn while learning to cook?", ["k_cooking"]),
            ("What does Rosa like to paint?", ["r_watercolor"]),
            ("How did Kenji find his cat?", ["k_cat"]),
            ("Why is Kenji's cat named Ember?", ["k_cat"]),
            ("What did Rosa try against the slugs?", ["r_garden_pests"]),
            (
                "What happened during the rope rescue at the quarry?",
                ["k_climbing_rescue"],
            ),
            ("Where does Rosa's book club meet?", ["r_book_club"]),
            ("How does Kenji study for the exam?", ["k_exam_study"]),
            ("What did Rosa and Mateo plant together?", ["r_grandson_visit"]),
            ("What did Kenji learn in his cooking class?", ["k_cooking_class"]),
            ("Who invited Rosa to exhibit her paintings?", ["r_exhibit_plan"]),
            ("How did Kenji hurt his shoulder?", ["k_injury"]),
            ("What prize did Rosa's tomatoes win?", ["r_garden_show"]),
            ("What did the vet think was wrong with Ember?", ["k_cat_sick"]),
            ("Which painting sold first at the exhibition?", ["r_exhibit"]),
            ("What did Rosa do with the money from her paintings?", ["r_exhibit"]),
            ("How well did Kenji do in the lieutenant exam?", ["k_exam_result"]),
            ("What did the doctor suggest for Rosa's knee?", ["r_knee"]),
            ("Which station is Kenji moving to?", ["k_new_station"]),
            ("What advice did Kenji give Rosa for Kyoto?", ["r_trip_plan"]),
            ("What did Kenji cook for his crew?", ["k_cooking_dinner"]),
            ("What did Rosa paint in Kyoto?", ["r_trip"]),
            ("What is Ember doing now that she is better?", ["k_cat_recovered"]),
            ("What is Rosa baking for the book club?", ["r_book_club_book"]),
            ("What was Kenji's first big fire as a lieutenant?", ["k_captain_first"]),
            ("What does Mateo talk about at school?", ["r_grandson_school"]),
            ("Where does Rosa teach watercolor now?", ["r_watercolor_class"]),
            (
                "Would Rosa likely enjoy a birdwatching trip?",
                ["r_watercolor", "r_exhibit"],
            ),
            ("What pets does Kenji have?", ["k_cat"]),
            ("Why would Mateo like Kenji?", ["r_grandson", "k_firefighter"]),
            ("When did Kenji adopt Ember?", ["k_cat"]),
            ("When did Rosa's tomatoes win at the garden show?", ["r_garden_show"]),
        ],
    },
]
